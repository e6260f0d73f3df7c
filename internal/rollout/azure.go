// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/resourcegraph/armresourcegraph"

	"github.com/kalypso/terraform-provider-kalypso/internal/outbound"
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
	// Limits bound the whole read (ReadTimeout); the client's transport bounds each request.
	Limits outbound.Limits
	// Tokens, when set, are the credential's tokens, redacted from every error.
	Tokens *TokenRecorder
}

// ErrTooManyClusters means a source holds more clusters than the caller allows.
var ErrTooManyClusters = errors.New("too many clusters")

// ErrMalformedAnswer means a source answered with something that is not what its contract documents.
var ErrMalformedAnswer = errors.New("malformed answer")

// ErrResourceGraph marks a failed Resource Graph request (credentials, authorization, network). A bound
// of outbound (throttled, timed out, too large, redirected) keeps its own kind instead.
var ErrResourceGraph = errors.New("the Resource Graph request failed")

// resourceGraphPageSize is the page size asked for; Resource Graph serves at most 1000 rows a page.
const resourceGraphPageSize = 1000

// NewResourceGraphClient returns a Resource Graph client. endpoint overrides Azure Resource Manager's
// (a sovereign cloud, or a test server). Every request is bounded by limits (outbound.NewClient): a
// deadline per attempt that covers the body, a cap on the body, no redirect off the endpoint's origin,
// and throttling (429, or 503 with Retry-After) waited out only up to limits.MaxRetryAfter, after which
// the error says "throttled". azcore's own retries cover server errors and dropped connections, with
// waits capped by the same bound; the caller bounds the whole read (AzureResourceGraph.Limits).
func NewResourceGraphClient(cred azcore.TokenCredential, endpoint string, opts *arm.ClientOptions, limits outbound.Limits) (*armresourcegraph.Client, error) {
	limits = limits.WithDefaults()
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
	opts.Transport = BoundedTransport(opts.Transport, "Azure Resource Graph", limits)
	if opts.Retry.MaxRetries == 0 {
		opts.Retry.MaxRetries = 3
	}
	if opts.Retry.MaxRetryDelay == 0 || opts.Retry.MaxRetryDelay > limits.MaxRetryAfter {
		opts.Retry.MaxRetryDelay = limits.MaxRetryAfter
	}
	// No TryTimeout: the bounded transport's deadline per attempt covers the body and names its attribute.
	// Throttling is the bounded transport's: azcore would wait out any Retry-After up to MaxRetryDelay
	// on each of its retries (a 429 with Retry-After: 55 blocked a plan for 3m44s).
	opts.Retry.StatusCodes = []int{http.StatusRequestTimeout, http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}
	return armresourcegraph.NewClient(cred, opts)
}

// BoundedTransport puts the bounds of outbound.NewClient under an Azure SDK pipeline: below is the
// pipeline's transport (nil: the default; a test's *http.Client lends its transport, which trusts a
// local server's certificate), api names the service in errors. The SDK adds the bearer token itself
// and refuses to send it over plain http; a redirect that leaves the first request's origin is refused,
// so the token never follows one.
func BoundedTransport(below policy.Transporter, api string, limits outbound.Limits) policy.Transporter {
	var base http.RoundTripper
	switch t := below.(type) {
	case nil:
	case *http.Client:
		base = t.Transport
	default:
		base = transporterFunc(t.Do)
	}
	return outbound.NewClient(outbound.Options{API: api, Limits: limits, Base: base})
}

type transporterFunc func(*http.Request) (*http.Response, error)

func (f transporterFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TokenRecorder is an Azure credential that remembers the tokens it hands out, so that an answer which
// echoes one (a 401 body, an error code, a status line) is redacted before it reaches a diagnostic.
type TokenRecorder struct {
	azcore.TokenCredential
	mu     sync.Mutex
	tokens []string
}

// GetToken gets a token from the wrapped credential and remembers it.
func (r *TokenRecorder) GetToken(ctx context.Context, opts policy.TokenRequestOptions) (azcore.AccessToken, error) {
	tok, err := r.TokenCredential.GetToken(ctx, opts)
	if err == nil && tok.Token != "" {
		r.mu.Lock()
		r.tokens = append(r.tokens, tok.Token)
		r.mu.Unlock()
	}
	return tok, err
}

// Sanitizer redacts every token handed out so far.
func (r *TokenRecorder) Sanitizer() sanitize.Sanitizer {
	if r == nil {
		return sanitize.New()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return sanitize.New(r.tokens...)
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

// maxPagesFloor is the least number of Resource Graph pages a read may take; more are allowed when
// Limit needs them at the page size a server may choose.
const maxPagesFloor = 100

func (a *AzureResourceGraph) Reports(ctx context.Context, commits []string) (_ []Report, err error) {
	limit := a.Limit
	if limit <= 0 {
		limit = DefaultMaxClusters
	}
	if strings.IndexFunc(a.RepoURL+a.Branch, unicode.IsControl) >= 0 || a.RepoURL == "" || a.Branch == "" {
		return nil, fmt.Errorf("the repository URL %q and branch %q must be non-empty and free of control characters", a.RepoURL, a.Branch)
	}
	parent := ctx
	ctx, cancel := outbound.ReadContext(ctx, a.Limits)
	defer cancel()
	defer func() { err = outbound.ReadError(ctx, parent, err, "Azure Resource Graph", a.Limits) }()
	format := armresourcegraph.ResultFormatObjectArray
	req := armresourcegraph.QueryRequest{
		Query:   ptr(a.Query()),
		Options: &armresourcegraph.QueryRequestOptions{ResultFormat: &format, Top: ptr(int32(resourceGraphPageSize))},
	}
	for _, s := range a.Subscriptions {
		req.Subscriptions = append(req.Subscriptions, ptr(s))
	}
	maxPages := max(maxPagesFloor, limit+1)
	var out []Report
	seenTokens, seenIDs := map[string]bool{}, map[string]bool{}
	var announced int64 = -1
	for page := 0; ; page++ {
		resp, err := a.Client.Resources(ctx, req, nil)
		if err != nil {
			return nil, a.describeError(err)
		}
		if resp.TotalRecords != nil && *resp.TotalRecords > int64(limit) {
			return nil, fmt.Errorf("the Resource Graph holds %d Flux configurations for this repository and branch, more than the limit of %d: %w", *resp.TotalRecords, limit, ErrTooManyClusters)
		}
		if resp.TotalRecords != nil && announced < 0 {
			announced = *resp.TotalRecords
		}
		rows, ok := resp.Data.([]any)
		if !ok && resp.Data != nil {
			return nil, fmt.Errorf("the Resource Graph answered page %d with data of type %T, not an object array: %w", page+1, resp.Data, ErrMalformedAnswer)
		}
		for i, row := range rows {
			r, id, err := fluxConfigurationReport(row, commits)
			if err != nil {
				return nil, fmt.Errorf("the Resource Graph row %d of page %d: %w", i, page+1, err)
			}
			if seenIDs[strings.ToLower(id)] {
				return nil, fmt.Errorf("the Resource Graph answered page %d with row %d, Flux configuration %q, which an earlier row already held; "+
					"its pages do not add up, so it is broken or hostile: %w", page+1, i, id, ErrMalformedAnswer)
			}
			seenIDs[strings.ToLower(id)] = true
			out = append(out, r)
		}
		if announced >= 0 && int64(len(out)) > announced {
			return nil, fmt.Errorf("the Resource Graph returned %d rows by page %d but announced %d (totalRecords); its pages do not add up, so it is broken or hostile: %w",
				len(out), page+1, announced, ErrMalformedAnswer)
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
		if seenTokens[*resp.SkipToken] {
			return nil, fmt.Errorf("the Resource Graph answered page %d with a $skipToken it had already given, which would page without end; it is broken or hostile: %w", page+1, ErrMalformedAnswer)
		}
		if page+1 >= maxPages {
			return nil, fmt.Errorf("the Resource Graph still answered with a $skipToken after %d pages (%d rows); that is more pages than %d Flux configurations need, "+
				"so it is broken or hostile (this page limit has no setting): %w", page+1, len(out), limit, ErrMalformedAnswer)
		}
		seenTokens[*resp.SkipToken] = true
		req.Options.SkipToken = resp.SkipToken
	}
}

// fluxConfigurationReport turns one projected row into a report.
func fluxConfigurationReport(row any, commits []string) (Report, string, error) {
	m, ok := row.(map[string]any)
	if !ok {
		return Report{}, "", fmt.Errorf("%w: a %T, not an object", ErrMalformedAnswer, row)
	}
	str := func(k string) string {
		s, _ := m[k].(string)
		return sanitize.New().Limit(1024).String(s)
	}
	id, name := str("id"), str("name")
	const ext = "/providers/microsoft.kubernetesconfiguration/"
	i := strings.Index(strings.ToLower(id), ext)
	if i <= 0 || name == "" {
		return Report{}, "", fmt.Errorf("%w: id %q and name %q do not name a Flux configuration of a cluster", ErrMalformedAnswer, id, name)
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
	return r, id, nil
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

// describeError keeps what helps (status, error code, a cut message) and drops the rest of the response
// dump azcore puts in its error text. Everything that came from the server is sanitized with the
// credential's tokens: a hostile endpoint may echo the bearer token in its status line or error code.
func (a *AzureResourceGraph) describeError(err error) error {
	scrub := a.Tokens.Sanitizer()
	var be *outbound.Error
	if errors.As(err, &be) {
		return scrub.Error(be)
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		msg := ""
		if re.RawResponse != nil {
			msg = re.RawResponse.Status
		}
		return fmt.Errorf("%w: Resource Graph answered %s (%s)", ErrResourceGraph, scrub.Limit(512).String(msg), scrub.Limit(256).String(re.ErrorCode))
	}
	return fmt.Errorf("%w: %s", ErrResourceGraph, scrub.Limit(1024).String(err.Error()))
}

func ptr[T any](v T) *T { return &v }
