// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"
)

// Every log line of a kalypso_gitops_commit call carries the resource's repository, branch and path,
// with the URL's credentials redacted.
func TestGitopsLogContext_NamesTheResourceWithoutCredentials(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &out)
	m := &gitopsCommitModel{
		RepositoryURL: types.StringValue("https://x-access-token:ghp_SECRET0123456789@github.com/org/fleet.git"),
		Branch:        types.StringValue("dev"), Path: types.StringValue("clusters"),
	}
	tflog.Info(gitopsLogContext(ctx, m), "render reused")
	lines, err := tflogtest.MultilineJSONDecode(&out)
	if err != nil || len(lines) != 1 {
		t.Fatalf("log lines %v (%v):\n%s", lines, err, out.String())
	}
	got := lines[0]
	if got["@message"] != "render reused" || got["kalypso_branch"] != "dev" || got["kalypso_path"] != "clusters" ||
		!strings.HasSuffix(got["kalypso_repository_url"].(string), "@github.com/org/fleet.git") {
		t.Errorf("log line: %v", got)
	}
	if strings.Contains(out.String(), "ghp_SECRET") {
		t.Errorf("the log carries the token:\n%s", out.String())
	}
}

// The benchmarks split a slow run into phases from these lines: each names its phase, carries its
// duration and says whether it failed, but never the error's text (that may quote a remote's answer;
// the user gets it as a diagnostic).
func TestPhaseLog_DurationAndFailureWithoutTheError(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &out)
	phaseLog(ctx, "delivered", time.Now().Add(-1500*time.Millisecond), nil)
	phaseLog(ctx, "branch refreshed", time.Now(), errors.New("fetch: ghp_SECRET0123456789 refused"))
	lines, err := tflogtest.MultilineJSONDecode(&out)
	if err != nil || len(lines) != 2 {
		t.Fatalf("log lines %v (%v):\n%s", lines, err, out.String())
	}
	if d, _ := lines[0]["duration_ms"].(float64); lines[0]["@message"] != "delivered" || d < 1500 || d > 60000 || lines[0]["failed"] != nil {
		t.Errorf("first line: %v", lines[0])
	}
	if lines[1]["@message"] != "branch refreshed" || lines[1]["failed"] != true {
		t.Errorf("second line: %v", lines[1])
	}
	if strings.Contains(out.String(), "ghp_SECRET") {
		t.Errorf("the log carries the error's text:\n%s", out.String())
	}
}
