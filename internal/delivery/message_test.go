// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// Three different changes get three different default messages, each saying what changed: the counts per
// action, the cluster types touched, the promoted commit and the root files.
func TestCommitMessage_DescribesTheChange(t *testing.T) {
	t.Parallel()
	promoted := strings.Repeat("0123456789", 4)
	trailer := "\n\nWritten by kalypso_gitops_commit (terraform-provider-kalypso)."
	for _, tc := range []struct {
		name string
		msg  CommitMessage
		ch   gitrepo.Changes
		want string
	}{{
		name: "first render",
		msg:  CommitMessage{Path: "clusters", Branch: "dev", Render: true, PromotedCommitID: promoted},
		ch: gitrepo.Changes{Added: []string{"drone/README.md", "drone/app-dev/namespace.yaml", "large/README.md"}, Removed: []string{"old/x.yaml"},
			Root: []string{PromotedCommitFile, "clusters/" + OwnerMarker}},
		want: "Update clusters on dev: 3 added, 1 removed; promote 012345678901\n\n" +
			"Cluster types: drone (2 added), large (1 added), old (1 removed)\n" +
			"Promoted commit: " + promoted + "\n" +
			"Root files: .github/tracking/Promoted_Commit_Id, clusters/.kalypso-gitops-commit" + trailer,
	}, {
		name: "one file in files mode at the root",
		msg:  CommitMessage{Branch: "main"},
		ch:   gitrepo.Changes{Modified: []string{"app.yaml"}, Removed: []string{"team/old.yaml", "team/older.yaml"}},
		want: "Update . on main: 1 modified, 2 removed\n\nFolders: (path root) (1 modified), team (2 removed)" + trailer,
	}, {
		name: "promotion only",
		msg:  CommitMessage{Path: "clusters", Branch: "qa", Render: true, PromotedCommitID: promoted},
		ch:   gitrepo.Changes{Root: []string{PromotedCommitFile}},
		want: "Update clusters on qa: no file changed; promote 012345678901\n\nPromoted commit: " + promoted +
			"\nRoot files: .github/tracking/Promoted_Commit_Id" + trailer,
	}, {
		name: "promoted commit removed, by a destroy",
		msg:  CommitMessage{Verb: "Remove", Path: "clusters", Branch: "qa", Render: true},
		ch:   gitrepo.Changes{Removed: []string{"drone/README.md"}, Root: []string{"clusters/" + OwnerMarker, PromotedCommitFile}},
		want: "Remove clusters on qa: 1 removed\n\nCluster types: drone (1 removed)\nPromoted commit: removed\n" +
			"Root files: .github/tracking/Promoted_Commit_Id, clusters/.kalypso-gitops-commit" + trailer,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.msg.Describe(tc.ch); got != tc.want {
				t.Errorf("message:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// A change across many cluster types names the first ten and counts the others.
func TestCommitMessage_ManyClusterTypes(t *testing.T) {
	t.Parallel()
	var added []string
	for i := 0; i < 14; i++ {
		added = append(added, fmt.Sprintf("ct-%02d/t/namespace.yaml", i))
	}
	got := CommitMessage{Path: "gitops", Branch: "dev", Render: true}.Describe(gitrepo.Changes{Added: added})
	if want := "Cluster types: ct-00 (1 added), ct-01 (1 added), ct-02 (1 added), ct-03 (1 added), ct-04 (1 added), ct-05 (1 added), " +
		"ct-06 (1 added), ct-07 (1 added), ct-08 (1 added), ct-09 (1 added), and 4 more\n"; !strings.Contains(got, want) {
		t.Errorf("message:\n%s\nwant a line %q", got, want)
	}
}

// The default commit_message asks for the generated message; a configured one is used as it is, and a
// removal keeps its own message.
func TestResource_DefaultMessageIsGenerated(t *testing.T) {
	t.Parallel()
	r := Resource{Branch: "dev", Path: "clusters", Render: true, Message: DefaultCommitMessage}
	want := r.Desired(map[string][]byte{"drone/README.md": []byte("x")}, "", false)
	req := r.DeliverRequest(want, r.Message, nil, "", false)
	if req.Apply.Describe == nil {
		t.Fatal("the default message is not generated")
	}
	if got := req.Apply.Describe(gitrepo.Changes{Added: []string{"drone/README.md"}}); !strings.HasPrefix(got, "Update clusters on dev: 1 added\n\nCluster types: drone (1 added)\n") {
		t.Errorf("generated message %q", got)
	}
	if req := r.DeliverRequest(want, "chore: render dev", nil, "", false); req.Apply.Describe != nil || req.Apply.Message != "chore: render dev" {
		t.Errorf("a configured message is replaced: %+v", req.Apply)
	}
	// A removal says that it is one, whatever message is configured.
	for _, msg := range []string{DefaultCommitMessage, "Kalypso: schedule dev"} {
		r.Message = msg
		req := r.RemovalRequest()
		if req.Apply.Describe == nil || !req.Removal || !req.Apply.NoCreate {
			t.Fatalf("%q: removal request %+v", msg, req)
		}
		got := req.Apply.Describe(gitrepo.Changes{Removed: []string{"drone/README.md", "large/t/namespace.yaml"}, Root: []string{"clusters/" + OwnerMarker}})
		if !strings.HasPrefix(got, "Remove clusters from branch dev (resource destroyed): 2 removed\n\nCluster types: drone (1 removed), large (1 removed)\n") {
			t.Errorf("%q: removal message %q", msg, got)
		}
	}
}
