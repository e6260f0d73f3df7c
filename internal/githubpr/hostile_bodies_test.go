// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package githubpr_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/githubpr"
	"github.com/kalypso/terraform-provider-kalypso/internal/outbound"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/hostile"
)

// TestHostileStatusBodies: answers that are not GitHub's statuses (not JSON, another shape, nested past
// any need, a status without context or with an unknown state) are errors that say what came back; a
// description with terminal escapes or bidi controls comes back without the escapes and with the controls
// made visible, so none reaches a warning, a log or the Markdown as a control character.
func TestHostileStatusBodies(t *testing.T) {
	t.Parallel()
	body := func(s string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(s))
		})
	}
	cases := []struct {
		name, body string
		want       []string // substrings of the error; nil for a read that succeeds
		wantKind   error
	}{
		{"HTML", "<html><body>proxy login</body></html>", []string{"read the commit statuses of org/gitops@"}, nil},
		{"an object, not a list", `{"message":"x"}`, []string{"read the commit statuses"}, nil},
		{"truncated JSON", `[{"context":"a","state":"success"`, []string{"read the commit statuses"}, nil},
		{"nested 100000 deep", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), []string{"read the commit statuses"}, nil},
		{"a status without context", `[{"state":"success"}]`, []string{`status 0 of page 1 has context "" and state "success"`}, githubpr.ErrMalformed},
		{"an unknown state", `[{"context":"kustomization/a","state":"<script>"}]`, []string{`state "<script>"`}, githubpr.ErrMalformed},
		{"a null entry", `[null]`, []string{"status 0 of page 1"}, githubpr.ErrMalformed},
		{"a context that is a number", `[{"context":7,"state":"success"}]`, []string{"read the commit statuses"}, nil},
		{"control characters in the context of an error", "[{\"context\":\"\\u001b[2Jx\\nKalypso-Ticket: y\",\"state\":\"nope\"}]", []string{`context "x\nKalypso-Ticket: y"`}, githubpr.ErrMalformed},
		{"a status for an unknown commit, with hostile text", "[{\"context\":\"kustomization/a\",\"state\":\"failure\",\"description\":\"\\u001b]8;;https://evil\\u0007click\\u001b]8;;\\u0007 line\\nbreak \\u202e [x](https://evil) <img src=x>\",\"target_url\":\"javascript:alert(1)\"}]", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api := hostile.Start(t, body(tc.body))
			svc, err := githubpr.New(githubpr.Options{BaseURL: api.URL + "/api/v3/", Token: hostileToken, LoopbackHTTP: true,
				Limits: outbound.Limits{RequestTimeout: time.Second, ReadTimeout: 5 * time.Second, MaxRetryAfter: time.Second, MaxBodyBytes: 1 << 20}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := svc.ListStatuses(context.Background(), "org", "gitops", strings.Repeat("a", 40), 10, 10)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 1 {
					t.Fatalf("statuses %+v", got)
				}
				d := got[0].Description
				// Terminal escape sequences are removed, other controls shown escaped; a line break stays
				// (sanitize keeps \n and \t), and each consumer keeps it out of its lines (fleetstatus cell()).
				for _, hidden := range []string{"\x1b", "\x07", "\u202e"} {
					if strings.Contains(d, hidden) {
						t.Errorf("the description keeps %q: %q", hidden, d)
					}
				}
				if d != "click line\nbreak \\u202e [x](https://evil) <img src=x>" {
					t.Errorf("the description does not show its controls: %q", d)
				}
				return
			}
			if err == nil {
				t.Fatalf("want an error, got %+v", got)
			}
			if tc.wantKind != nil && !errors.Is(err, tc.wantKind) {
				t.Errorf("error %q is not %v", err, tc.wantKind)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.ContainsAny(err.Error(), "\x1b\x07") {
				t.Errorf("the error holds a control character: %q", err)
			}
		})
	}
}
