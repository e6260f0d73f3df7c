// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// TestRemoteTextIsSanitized: a Git host that answers 401 with the request's credentials and terminal
// escapes in its body (gitserver.EchoCredentials) reaches neither the error nor a debug event with
// them. The configured token is redacted whatever its shape, a GitHub-shaped one by its shape too, and
// the error is exact: the body's printable text stays, so the user still sees what the server said.
func TestRemoteTextIsSanitized(t *testing.T) {
	t.Parallel()
	for _, token := range []string{"ghp_ECHOtoken0123456789abcdef", "plain-configured-secret"} {
		root := t.TempDir()
		gitserver.NewSeededRepo(t, root, "fleet.git", "main", map[string]string{"clusters/a.yaml": "a: 1\n"})
		var hits gitserver.Counter
		srv := gitserver.Start(t, root, gitserver.Options{Token: token, Wrap: gitserver.EchoCredentials(gitserver.Any, &hits)})
		var mu sync.Mutex
		var events []string
		c := &gitrepo.Client{CacheDir: t.TempDir(), Auth: gitrepo.Auth{LoopbackHTTP: true, Token: token}, Debug: func(_ context.Context, msg string, fields map[string]any) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, fmt.Sprint(msg, fields))
		}}
		url := srv.RepoURL("fleet.git")
		_, _, readErr := c.ReadTree(context.Background(), url, "main", "clusters")
		_, applyErr := c.Apply(context.Background(), gitrepo.ApplyRequest{RepoURL: url, Branch: "main", Path: "clusters",
			Files: map[string][]byte{"b.yaml": []byte("b: 1\n")}, Message: "m", Author: gitrepo.Signature{Name: "a", Email: "a@example.com"}})
		for op, err := range map[string]error{"read": readErr, "write": applyErr} {
			if !errors.Is(err, gitrepo.ErrAuth) {
				t.Fatalf("%s: want ErrAuth, got %v", op, err)
			}
			want := op + ` repository "` + url + `", branch "main", path "clusters": authentication failed: authentication required: ` +
				"denied: x-access-token:REDACTED\nAuthorization: REDACTED\n" +
				`Apply complete! Resources: 0 added, 0 changed, 0 destroyed.\r (check the token or ssh key and its permissions)`
			if got := err.Error(); got != want {
				t.Errorf("%s error:\n got %q\nwant %q", op, got, want)
			}
		}
		if hits.N() == 0 {
			t.Fatal("the hostile answer was never served")
		}
		mu.Lock()
		all := strings.Join(events, "\n")
		mu.Unlock()
		if !strings.Contains(all, "REDACTED") {
			t.Errorf("no debug event carries the (redacted) error: %s", all)
		}
		if strings.Contains(all, token) || strings.ContainsAny(all, "\x1b\x07") {
			t.Errorf("a debug event carries the token or an escape: %q", all)
		}
	}
}
