// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package platformconfig

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestSchemaRefNeverLeavesTheDocument: `$ref` resolves only inside the schema document; a file (even a
// FIFO, which would hang a read), a relative path or a URL is an error naming the reference, and nothing
// is read: the error never shows the file's content.
func TestSchemaRefNeverLeavesTheDocument(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.json")
	if err := os.WriteFile(secret, []byte(`{"type": "object", "title": "SECRET-CONTENT"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, ref := range map[string]string{
		"absolute file URL": "file://" + secret, "FIFO": "file://" + fifo, "etc passwd": "file:///etc/passwd",
		"relative path": "secret.json", "relative path up the tree": "../../../../etc/passwd", "https": "https://example.invalid/schema.json", "http with fragment": "http://127.0.0.1:1/s.json#/definitions/x",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := CompileSchema(`{"type": "object", "properties": {"a": {"$ref": "` + ref + `"}}}`)
			wd, _ := os.Getwd()
			if err == nil || !strings.Contains(err.Error(), "is refused: a schema may only reference its own definitions") || strings.Contains(err.Error(), "SECRET-CONTENT") ||
				strings.Contains(err.Error(), "root:") || strings.Contains(err.Error(), wd) {
				t.Fatalf("err = %v", err)
			}
		})
	}
	s, err := CompileSchema(`{"definitions": {"port": {"type": "integer"}}, "properties": {"port": {"$ref": "#/definitions/port"}}}`)
	if err != nil {
		t.Fatalf("internal reference refused: %v", err)
	}
	if v := Validate(s, map[string]interface{}{"port": "x"}); v == nil {
		t.Fatal("internal reference not enforced")
	}
	// A reference cycle inside the document ends with a violation, not a hang; a $schema URL is refused too.
	s, err = CompileSchema(`{"definitions": {"a": {"$ref": "#/definitions/b"}, "b": {"$ref": "#/definitions/a"}}, "$ref": "#/definitions/a"}`)
	if err != nil {
		t.Fatal(err)
	}
	if v := Validate(s, map[string]interface{}{"a": "x"}); v == nil || !strings.Contains(v.Message, "reference cycle") {
		t.Fatalf("cycle: %+v", v)
	}
	if _, err := CompileSchema(`{"$schema": "https://example.invalid/meta.json"}`); err == nil || !strings.Contains(err.Error(), "is refused") {
		t.Fatalf("$schema URL: %v", err)
	}
}
