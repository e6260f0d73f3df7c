// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestHostileInputCatalogue_Commit is the commit layer of the bad-input catalogue: hostile paths, file
// names and URLs given to Apply. Each case must fail with the right error class, name the offending
// value (credentials excepted: they are never echoed), never panic, and leave the branch exactly as it
// was: same head, same tree. The resource-level ValidateConfig cases are in internal/provider.
func TestHostileInputCatalogue_Commit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	seed := map[string]string{"README.md": "outside\n", "clusters/.sops.yaml": "dot\n", "clusters/a/file.yaml": "managed\n", "etc/passwd": "outside\n"}
	repo := gitserver.NewSeededRepo(t, root, "fleet.git", "main", seed)
	url := "file://" + repo
	long := strings.Repeat("x", 256)
	ok := map[string][]byte{"a/file.yaml": []byte("ok")}
	cases := []struct {
		name      string
		url       string
		path      string
		files     map[string][]byte
		rootFiles map[string][]byte
		class     error
		mention   string // quoted in the error
	}{
		{"path ..", url, "..", ok, nil, gitrepo.ErrInvalidInput, `".."`},
		{"path escaping through a sub-directory", url, "clusters/../../etc", ok, nil, gitrepo.ErrInvalidInput, `".."`},
		{"absolute path", url, "/etc", ok, nil, gitrepo.ErrInvalidInput, `"/etc"`},
		{"path with NUL", url, "clusters\x00/x", ok, nil, gitrepo.ErrInvalidInput, "NUL"},
		{"path with a .git segment", url, "clusters/.git", ok, nil, gitrepo.ErrInvalidInput, ".git"},
		{"path with a backslash", url, `clusters\..\etc`, ok, nil, gitrepo.ErrInvalidInput, "backslash"},
		{"path segment over 255 bytes", url, "clusters/" + long, ok, nil, gitrepo.ErrInvalidInput, "256 bytes"},
		{"file name ..", url, "clusters", map[string][]byte{"../README.md": []byte("x")}, nil, gitrepo.ErrInvalidInput, `"../README.md"`},
		{"file name deep escape", url, "clusters", map[string][]byte{"a/../../../etc/passwd": []byte("x")}, nil, gitrepo.ErrInvalidInput, `".."`},
		{"absolute file name", url, "clusters", map[string][]byte{"/etc/passwd": []byte("x")}, nil, gitrepo.ErrInvalidInput, `"/etc/passwd"`},
		{"file name with NUL", url, "clusters", map[string][]byte{"a\x00b": []byte("x")}, nil, gitrepo.ErrInvalidInput, "NUL"},
		{"file name over 255 bytes", url, "clusters", map[string][]byte{"a/" + long: []byte("x")}, nil, gitrepo.ErrInvalidInput, "256 bytes"},
		{"file name that is a dot-entry at the root of path", url, "clusters", map[string][]byte{".sops.yaml": []byte("x")}, nil, gitrepo.ErrInvalidInput, "dot-entries"},
		{"file name inside .git", url, "clusters", map[string][]byte{"a/.git/config": []byte("x")}, nil, gitrepo.ErrInvalidInput, ".git"},
		{"empty file name", url, "clusters", map[string][]byte{"": []byte("x")}, nil, gitrepo.ErrInvalidInput, "empty"},
		{"root file escaping the repository", url, "clusters", ok, map[string][]byte{"../x": []byte("x")}, gitrepo.ErrInvalidInput, `"../x"`},
		{"https URL with user and token", "https://bot:ghp_CATALOGUEsecret123@example.com/org/fleet.git", "clusters", ok, nil, gitrepo.ErrCredentialsInURL, ""},
		{"https URL with a token as user", "https://ghp_CATALOGUEsecret123@example.com/org/fleet.git", "clusters", ok, nil, gitrepo.ErrCredentialsInURL, ""},
		{"ssh URL with a password", "ssh://git:ghp_CATALOGUEsecret123@example.com/org/fleet.git", "clusters", ok, nil, gitrepo.ErrCredentialsInURL, ""},
		{"unsupported scheme", "ftp://example.com/fleet.git", "clusters", ok, nil, gitrepo.ErrInvalidInput, `"ftp"`},
	}
	head := gitserver.Head(t, repo, "main")
	c := &gitrepo.Client{CacheDir: t.TempDir()}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("panic: %v", p)
					}
				}()
				_, err = c.Apply(context.Background(), gitrepo.ApplyRequest{RepoURL: tc.url, Branch: "main", Path: tc.path, Files: tc.files, RootFiles: tc.rootFiles, Message: "hostile"})
			}()
			if err == nil || !errors.Is(err, tc.class) {
				t.Fatalf("error %v, want class %v", err, tc.class)
			}
			if !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("error does not mention %q: %v", tc.mention, err)
			}
			if strings.Contains(err.Error(), "CATALOGUEsecret") {
				t.Errorf("error echoes the credential: %v", err)
			}
			if err := gitrepo.ValidateURL(tc.url); tc.class == gitrepo.ErrCredentialsInURL && (err == nil || strings.Contains(err.Error(), "CATALOGUEsecret")) {
				t.Errorf("ValidateURL: %v", err)
			}
			if got := gitserver.Head(t, repo, "main"); got != head {
				t.Fatalf("the branch moved")
			}
			if got := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(got, seed) {
				t.Fatalf("tree changed: %v", got)
			}
		})
	}

	// Hostile but legal names stay below path: nothing outside it changes.
	legal := map[string][]byte{
		"x/..not-dot-dot/x.yaml": []byte("1"), "a/...": []byte("2"), "sp ace/ünï cødé.yaml": []byte("3"),
		"a/" + strings.Repeat("y", 255): []byte("4"), "-dash/x": []byte("5"),
	}
	if _, err := c.Apply(context.Background(), gitrepo.ApplyRequest{RepoURL: url, Branch: "main", Path: "clusters", Files: legal, Message: "legal"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"README.md": "outside\n", "clusters/.sops.yaml": "dot\n", "etc/passwd": "outside\n"}
	for k, v := range legal {
		want["clusters/"+k] = string(v)
	}
	if got := gitserver.Files(t, repo, "main"); !reflect.DeepEqual(got, want) {
		t.Errorf("legal names:\n got %v\nwant %v", got, want)
	}
}
