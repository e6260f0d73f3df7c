// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// gitopsLogContext puts the resource's identity on every log line of one Terraform call (plan, apply,
// refresh, destroy), the engine's debug events included, so that the log of a configuration with many
// kalypso_gitops_commit resources says which one each line is about. The URL is redacted: logs never
// carry credentials.
func gitopsLogContext(ctx context.Context, m *gitopsCommitModel) context.Context {
	return tflog.SetField(tflog.SetField(tflog.SetField(ctx,
		"kalypso_repository_url", gitrepo.RedactURL(m.RepositoryURL.ValueString())),
		"kalypso_branch", m.Branch.ValueString()),
		"kalypso_path", m.Path.ValueString())
}

// phaseLog records how long one phase of a plan, refresh or apply took (TF_LOG_PROVIDER=debug), so
// that a slow run can be split into refresh, render, diff, write and push without a profiler: the
// render and each git fetch and push log their own durations.
func phaseLog(ctx context.Context, msg string, start time.Time, err error) {
	fields := map[string]any{"duration_ms": time.Since(start).Milliseconds()}
	if err != nil {
		fields["failed"] = true // the error itself reaches the user as a diagnostic
	}
	tflog.Debug(ctx, msg, fields)
}
