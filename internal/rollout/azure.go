// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"
	"unicode"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resourcegraph/armresourcegraph"

	"github.com/kalypso/terraform-provider-kalypso/internal/sanitize"
)

// ResourceGraphQuerier runs one page of a Resource Graph query; armresourcegraph.Client is one.
type ResourceGraphQuerier interface {
	Resources(ctx context.Context, query armresourcegraph.QueryRequest, options *armresourcegraph.ClientResourcesOptions) (armresourcegraph.ClientResourcesResponse, error)
}

// AzureResourceGraph reads the Flux configurations of Arc-enabled and AKS clusters that reconcile a GitOps
// repository and branch, as upstream's promotion check does: their complianceState and the commit they
// synced (sourceSyncedCommitId), from Azure Resource Graph. The cluster is the resource the
// configuration extends; the reconciler is the configuration's name.
type AzureResourceGraph struct {
	Client ResourceGraphQuerier
	// Subscriptions scope the query; empty: every subscription the credential can read.
	Subscriptions []string
	// RepoURL and Branch are what the Flux configurations' gitRepository points at.
	RepoURL, Branch string
	// Limit bounds the configurations read; more is ErrTooManyClusters.
	Limit int
}

// ErrTooManyClusters means a source holds more clusters than the caller allows.
var ErrTooManyClusters = errors.New("too many clusters")

// ErrMalformedAnswer means a source answered with something that is not what its contract documents.
var ErrMalformedAnswer = errors.New("malformed answer")

// ErrResourceGraph marks a failed Resource Graph request (credentials, authorization, network, throttling).
var ErrResourceGraph = errors.New("the Resource Graph request failed")

// resourceGraphPageSize is the page size asked for; Resource Graph serves at most 1000 rows a page.
const resourceGraphPageSize = 1000

// NewResourceGraphClient returns a Resource Graph client. endpoint overrides Azure Resource Manager's
// (a sovereign cloud, or a test server); retries follow azcore's policy, which waits out throttling
// (429 with Retry-After) before it gives up.
func NewResourceGraphClient(cred azcore.TokenCredential, endpoint string, opts *arm.ClientOptions) (*armresourcegraph.Client, error) {
	if opts == nil {
		opts = &arm.ClientOptions{}
	}
	if endpoint != "" {
		cfg := cloud.AzurePublic
		cfg.Services = map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: endpoint, Audience: cloud.AzurePublic.Services[cloud.ResourceManager].Audience},
		}
		opts.Cloud = cfg
	}
	if opts.Retry.MaxRetries == 0 {
		opts.Retry = policy.RetryOptions{MaxRetries: 4, MaxRetryDelay: time.Minute}
	}
	return armresourcegraph.NewClient(cred, opts)
}

// Query is the Kusto query the source runs; the repository URL and branch are quoted as string literals.
func (a *AzureResourceGraph) Query() string {
	return strings.Join([]string{
		"kubernetesconfigurationresources",
		"| where type =~ 'microsoft.kubernetesconfiguration/fluxconfigurations'",
		"| where tostring(properties.gitRepository.url) =~ " + kqlString(a.RepoURL) +
			" and tostring(properties.gitRepository.repositoryRef.branch) == " + kqlString(a.Branch),
		"| project id, name, complianceState = tostring(properties.complianceState), " +
			"commit = tostring(properties.sourceSyncedCommitId), statusUpdatedAt = tostring(properties.statusUpdatedAt), " +
			"errorMessage = tostring(properties.errorMessage)",
		"| order by id asc",
	}, "\n")
}

// kqlString quotes s as a Kusto string literal: backslash and quote escaped, control characters as \uXXXX,
// so nothing in a URL or branch name can end the literal.
func kqlString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

func (a *AzureResourceGraph) Reports(ctx context.Context, commits []string) ([]Report, error) {
	limit := a.Limit
	if limit <= 0 {
		limit = DefaultMaxClusters
	}
	if strings.IndexFunc(a.RepoURL+a.Branch, unicode.IsControl) >= 0 || a.RepoURL == "" || a.Branch == "" {
		return nil, fmt.Errorf("the repository URL %q and branch %q must be non-empty and free of control characters", a.RepoURL, a.Branch)
	}
	format := armresourcegraph.ResultFormatObjectArray
	req := armresourcegraph.QueryRequest{
		Query:   ptr(a.Query()),
		Options: &armresourcegraph.QueryRequestOptions{ResultFormat: &format, Top: ptr(int32(resourceGraphPageSize))},
	}
	for _, s := range a.Subscriptions {
		req.Subscriptions = append(req.Subscriptions, ptr(s))
	}
	var out []Report
	for page := 0; ; page++ {
		resp, err := a.Client.Resources(ctx, req, nil)
		if err != nil {
			return nil, describeAzureError(err)
		}
		if resp.TotalRecords != nil && *resp.TotalRecords > int64(limit) {
			return nil, fmt.Errorf("the Resource Graph holds %d Flux configurations for this repository and branch, more than the limit of %d: %w", *resp.TotalRecords, limit, ErrTooManyClusters)
		}
		rows, ok := resp.Data.([]any)
		if !ok && resp.Data != nil {
			return nil, fmt.Errorf("the Resource Graph answered page %d with data of type %T, not an object array: %w", page+1, resp.Data, ErrMalformedAnswer)
		}
		for i, row := range rows {
			r, err := fluxConfigurationReport(row, commits)
			if err != nil {
				return nil, fmt.Errorf("the Resource Graph row %d of page %d: %w", i, page+1, err)
			}
			out = append(out, r)
		}
		if len(out) > limit {
			return nil, fmt.Errorf("the Resource Graph returned more than %d Flux configurations for this repository and branch: %w", limit, ErrTooManyClusters)
		}
		if resp.SkipToken == nil || *resp.SkipToken == "" {
			return out, nil
		}
		if len(rows) == 0 {
			return nil, fmt.Errorf("the Resource Graph answered page %d with no rows but a $skipToken: %w", page+1, ErrMalformedAnswer)
		}
		req.Options.SkipToken = resp.SkipToken
	}
}

// fluxConfigurationReport turns one projected row into a report.
func fluxConfigurationReport(row any, commits []string) (Report, error) {
	m, ok := row.(map[string]any)
	if !ok {
		return Report{}, fmt.Errorf("%w: a %T, not an object", ErrMalformedAnswer, row)
	}
	str := func(k string) string {
		s, _ := m[k].(string)
		return sanitize.New().Limit(1024).String(s)
	}
	id, name := str("id"), str("name")
	const ext = "/providers/microsoft.kubernetesconfiguration/"
	i := strings.Index(strings.ToLower(id), ext)
	if i <= 0 || name == "" {
		return Report{}, fmt.Errorf("%w: id %q and name %q do not name a Flux configuration of a cluster", ErrMalformedAnswer, id, name)
	}
	// The cluster is the resource the configuration extends, identified by its resource ID (Azure's IDs
	// are case-insensitive): two clusters named aks-dev in two resource groups are two clusters.
	r := Report{Cluster: path.Base(id[:i]), ClusterID: strings.ToLower(id[:i]), Reconciler: name, Commit: syncedCommit(str("commit"), commits)}
	// A time that does not parse stays zero, which no soak_time accepts.
	if t, err := time.Parse(time.RFC3339Nano, str("statusUpdatedAt")); err == nil {
		r.Time = t
	}
	state := str("complianceState")
	switch strings.ToLower(state) {
	case "compliant":
		r.State = Succeeded
	case "non-compliant", "noncompliant":
		r.State = Failed
	default: // Pending, Suspended, Unknown
		r.State = Progressing
	}
	r.Message = state
	if e := str("errorMessage"); e != "" {
		r.Message += ": " + e
	}
	return r, nil
}

// syncedCommit reads the SHA out of sourceSyncedCommitId ("dev/<sha>", "dev@sha1:<sha>" or "<sha>") and
// expands an abbreviated one against the commits asked about.
func syncedCommit(v string, commits []string) string {
	sha := v
	if i := strings.LastIndexAny(sha, "/:"); i >= 0 {
		sha = sha[i+1:]
	}
	sha = strings.ToLower(sha)
	for _, c := range commits {
		if len(sha) >= 7 && strings.HasPrefix(c, sha) {
			return c
		}
	}
	return sha
}

// describeAzureError keeps what helps (status, error code, a cut message) and drops the rest of the
// response dump azcore puts in its error text.
func describeAzureError(err error) error {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		msg := ""
		if re.RawResponse != nil {
			msg = re.RawResponse.Status
		}
		return fmt.Errorf("%w: Resource Graph answered %s (%s)", ErrResourceGraph, sanitize.New().Limit(512).String(msg), sanitize.New().Limit(256).String(re.ErrorCode))
	}
	return fmt.Errorf("%w: %s", ErrResourceGraph, sanitize.New().Limit(1024).String(err.Error()))
}

func ptr[T any](v T) *T { return &v }
