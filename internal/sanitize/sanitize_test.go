// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package sanitize_test

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/sanitize"
)

func TestString(t *testing.T) {
	t.Parallel()
	const configured = "s3cr3t-configured-value"
	s := sanitize.New(configured, "", "x")
	for _, tc := range []struct{ name, in, want string }{
		{"plain text is kept", "authentication required\nline two\tcolumn", "authentication required\nline two\tcolumn"},
		{"configured secret", "denied: x:" + configured + " for you", "denied: x:REDACTED for you"},
		{"similar text is kept", "denied s3cr3t-configured", "denied s3cr3t-configured"},
		{"classic token", "token ghp_0123456789abcdefABCDEF0123 refused", "token REDACTED refused"},
		{"fine-grained token", "github_pat_11AAAAAAA0123456789_abcdefghijkl!", "REDACTED!"},
		{"server and app tokens", "ghs_abcdefghijklmnop1234 gho_abcdefghijklmnop1234 ghu_abcdefghijklmnop1234", "REDACTED REDACTED REDACTED"},
		{"x-access-token userinfo", "denied: x-access-token:whatever-it-is@host", "denied: x-access-token:REDACTED@host"},
		{"url userinfo", "fetch https://bob:hunter2@example.com/r.git failed", "fetch https://REDACTED@example.com/r.git failed"},
		{"authorization header", "Authorization: Basic eC1hY2Nlc3MtdG9rZW46Z2hw\nnext", "Authorization: REDACTED\nnext"},
		{"json authorization", `{"authorization": "token abc"}`, `{"authorization": "REDACTED"}`},
		{"bare bearer", "got Bearer eyJhbGciOi.J9.x and", "got Bearer REDACTED and"},
		{"ordinary words after basic", "Basic realm=git, bearer authentication", "Basic realm=git, bearer authentication"},
		{"clear screen and colors", "\x1b[2J\x1b[H\x1b[32mApply complete!\x1b[0m", "Apply complete!"},
		{"osc title and hyperlink", "\x1b]0;pwned\x07a\x1b]8;;https://evil\x1b\\link\x1b]8;;\x1b\\", "alink"},
		{"escape inside a token", "ghp_0123456789\x1b[0mabcdefABCDEF", "REDACTED"},
		{"other controls escaped", "a\rb\x00c\x07d\u009be\u202ef", `a\rb\x00c\x07d\x9be\u202ef`},
		{"invalid utf-8", "a\xffb", "a\uFFFDb"},
		{"bare JWT (an Entra ID access token)", `{"code":"eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJhcm0ifQ.c2lnbmF0dXJl"}`, `{"code":"REDACTED"}`},
		{"a word starting eyJ is kept", "eyJust a word.eyJoke", "eyJust a word.eyJoke"},
		{"pem key", "key -----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY----- end", "key REDACTED end"},
	} {
		if got := s.String(tc.in); got != tc.want {
			t.Errorf("%s: String(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestStringCutsLongBodies(t *testing.T) {
	t.Parallel()
	in := strings.Repeat("é", 3000) // 6000 bytes
	got := sanitize.String(in)
	want := strings.Repeat("é", sanitize.MaxBytes/2) + fmt.Sprintf(" … (%d more bytes cut)", 6000-sanitize.MaxBytes)
	if got != want {
		t.Errorf("cut = %q…, want %q…", got[len(got)-40:], want[len(want)-40:])
	}
	if got := sanitize.New().Limit(10).String("0123456789abc"); got != "0123456789 … (3 more bytes cut)" {
		t.Errorf("Limit(10): %q", got)
	}
	huge := strings.Repeat("a", 5<<20)
	if got := sanitize.String(huge); !strings.HasSuffix(got, fmt.Sprintf("(%d more bytes cut)", 5<<20-sanitize.MaxBytes)) {
		t.Errorf("huge body: %q", got[len(got)-40:])
	}
}

func TestMultiLineSecretIsRedactedLineByLine(t *testing.T) {
	t.Parallel()
	key := "-----BEGIN KEY-----\nAAAABBBBCCCCDDDDEEEEFFFF\nGGGGHHHHIIIIJJJJKKKK\n-----END KEY-----"
	s := sanitize.New(key)
	if got := s.String("echo GGGGHHHHIIIIJJJJKKKK"); got != "echo REDACTED" {
		t.Errorf("got %q", got)
	}
	if got := s.With("another-secret").String("another-secret AAAABBBBCCCCDDDDEEEEFFFF"); got != "REDACTED REDACTED" {
		t.Errorf("With: got %q", got)
	}
}

func TestErrorKeepsTheChain(t *testing.T) {
	t.Parallel()
	cause := fmt.Errorf("%w: denied: x-access-token:ghp_0123456789abcdefABCDEF\x1b[2J", fs.ErrPermission)
	err := sanitize.Error(cause)
	if !errors.Is(err, fs.ErrPermission) {
		t.Error("errors.Is lost the sentinel")
	}
	if got, want := fmt.Errorf("read: %w", err).Error(), "read: permission denied: denied: x-access-token:REDACTED"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if sanitize.Error(nil) != nil {
		t.Error("nil must stay nil")
	}
}
