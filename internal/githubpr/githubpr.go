// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package githubpr keeps one GitHub pull request per stable head branch up to
// date: it creates it, updates the open one in place (title, body, labels), and
// reports whether a previous one was merged or closed. It uses go-github and is
// free of Terraform types.
package githubpr

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/kalypso/terraform-provider-kalypso/internal/outbound"
	"github.com/kalypso/terraform-provider-kalypso/internal/sanitize"
)

// LabelPromoted is added when the promoted commit changes, as upstream Kalypso's promotion workflow expects.
const LabelPromoted = "promoted"

// ErrNotFound means the repository or pull request does not exist (or is not visible with the token).
var ErrNotFound = errors.New("not found on GitHub")

// Service talks to the GitHub REST API.
type Service struct {
	gh    *github.Client
	debug DebugFunc
	// scrub sanitizes GitHub's answers (error messages from response bodies) where they enter.
	scrub  sanitize.Sanitizer
	limits outbound.Limits
}

// DefaultBaseURL is GitHub.com's REST API.
const DefaultBaseURL = "https://api.github.com/"

// Options configure a Service.
type Options struct {
	// HTTPClient supplies the transport below the provider's bounds (nil: the default transport); tests
	// use it to trust a local server's certificate.
	HTTPClient *http.Client
	// BaseURL is the REST API: "" for https://api.github.com/, a GHES URL such as
	// https://ghe.example.com/api/v3/ otherwise.
	BaseURL string
	// Token authenticates (may be empty). It is sent only to BaseURL's scheme, host and port, over https,
	// or over plain http to a loopback host when LoopbackHTTP is set; never across a redirect to another host.
	Token        string
	LoopbackHTTP bool
	// Debug receives each REST request when it is not nil.
	Debug DebugFunc
	// Limits bound every request (outbound.Limits; zero fields take the defaults).
	Limits outbound.Limits
}

// New returns a Service. Every request is bounded by o.Limits (outbound.NewClient): a deadline per
// attempt that covers the body, a cap on the body, Retry-After honoured up to a bound, and no redirect
// to another origin.
func New(o Options) (*Service, error) {
	scrub := sanitize.New(o.Token)
	base := o.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	if u, err := url.Parse(base); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("invalid GitHub base URL %q: want an http(s) URL such as https://ghe.example.com/api/v3/", base)
	}
	var below http.RoundTripper
	if o.HTTPClient != nil {
		below = o.HTTPClient.Transport
	}
	if o.Debug != nil {
		if below == nil {
			below = http.DefaultTransport.(*http.Transport).Clone() //nolint:forcetypeassert // net/http's default is a *http.Transport
		}
		below = &debugTransport{base: below, debug: o.Debug, scrub: scrub}
	}
	var credential outbound.Credential
	if o.Token != "" {
		token := o.Token
		credential = func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
	}
	client := outbound.NewClient(outbound.Options{
		API: "the GitHub API", Origin: base, Credential: credential, LoopbackHTTP: o.LoopbackHTTP, Limits: o.Limits, Base: below,
	})
	gh := github.NewClient(client)
	if o.BaseURL != "" {
		var err error
		if gh, err = gh.WithEnterpriseURLs(o.BaseURL, o.BaseURL); err != nil {
			return nil, fmt.Errorf("invalid GitHub base URL %q: %w", o.BaseURL, err)
		}
	}
	return &Service{gh: gh, debug: o.Debug, scrub: scrub, limits: o.Limits.WithDefaults()}, nil
}

// ParseRepo extracts owner and repository name from an https, ssh or scp-style GitHub URL.
func ParseRepo(repoURL string) (owner, repo string, err error) {
	p := repoURL
	switch {
	case strings.Contains(p, "://"):
		u, perr := url.Parse(p)
		if perr != nil {
			return "", "", fmt.Errorf("cannot parse repository URL %q: %w", repoURL, perr)
		}
		p = u.Path
	case strings.Contains(p, ":"):
		p = p[strings.Index(p, ":")+1:]
	}
	p = strings.TrimSuffix(strings.Trim(p, "/"), ".git")
	parts := strings.Split(p, "/")
	if len(parts) < 2 || parts[len(parts)-2] == "" || parts[len(parts)-1] == "" {
		return "", "", fmt.Errorf("repository URL %q does not name a GitHub owner/repository", repoURL)
	}
	return parts[len(parts)-2], parts[len(parts)-1], nil
}

// State of a pull request.
const (
	StateOpen   = "open"
	StateClosed = "closed"
	StateMerged = "merged"
)

// PR is the part of a pull request the provider tracks.
type PR struct {
	Number  int
	URL     string
	State   string // open, closed or merged
	HeadSHA string
	Title   string
	Body    string
	Labels  []string
}

// EnsureRequest describes the pull request that should be open.
type EnsureRequest struct {
	Owner, Repo string
	Base, Head  string
	Title, Body string
	// Labels are added (existing labels are never removed).
	Labels []string
}

// Ensure updates the open pull request from Head to Base in place, or creates one.
// created reports whether a new pull request was opened.
func (s *Service) Ensure(ctx context.Context, req EnsureRequest) (pr PR, created bool, err error) {
	open, _, err := s.gh.PullRequests.List(ctx, req.Owner, req.Repo, &github.PullRequestListOptions{
		State: "open", Head: req.Owner + ":" + req.Head, Base: req.Base,
	})
	if err != nil {
		return PR{}, false, s.wrap(err, "list open pull requests of %s/%s", req.Owner, req.Repo)
	}
	var cur *github.PullRequest
	action := "unchanged"
	for _, p := range open {
		if p.GetHead().GetRef() == req.Head && p.GetBase().GetRef() == req.Base {
			cur = p
			break
		}
	}
	if cur == nil {
		cur, _, err = s.gh.PullRequests.Create(ctx, req.Owner, req.Repo, &github.NewPullRequest{
			Title: github.String(req.Title), Head: github.String(req.Head), Base: github.String(req.Base),
			Body: github.String(req.Body), MaintainerCanModify: github.Bool(false),
		})
		if err != nil {
			return PR{}, false, s.wrap(err, "create a pull request from %s to %s in %s/%s", req.Head, req.Base, req.Owner, req.Repo)
		}
		created, action = true, "created"
	} else if cur.GetTitle() != req.Title || cur.GetBody() != req.Body {
		cur, _, err = s.gh.PullRequests.Edit(ctx, req.Owner, req.Repo, cur.GetNumber(), &github.PullRequest{
			Title: github.String(req.Title), Body: github.String(req.Body),
		})
		if err != nil {
			return PR{}, false, s.wrap(err, "update pull request #%d in %s/%s", cur.GetNumber(), req.Owner, req.Repo)
		}
		action = "updated"
	}
	have := map[string]bool{}
	for _, l := range cur.Labels {
		have[l.GetName()] = true
	}
	var missing []string
	for _, l := range req.Labels {
		if !have[l] {
			missing = append(missing, l)
			have[l] = true
		}
	}
	labels := labelNames(cur.Labels)
	if len(missing) > 0 {
		got, _, err := s.gh.Issues.AddLabelsToIssue(ctx, req.Owner, req.Repo, cur.GetNumber(), missing)
		if err != nil {
			return PR{}, created, s.wrap(err, "label pull request #%d in %s/%s", cur.GetNumber(), req.Owner, req.Repo)
		}
		labels = labelNames(got)
	}
	pr = toPR(cur)
	pr.Labels = labels
	if s.debug != nil {
		s.debug(ctx, "github pull request", map[string]any{"repository": req.Owner + "/" + req.Repo, "base": req.Base, "head": req.Head,
			"number": pr.Number, "action": action, "labels_added": missing})
	}
	return pr, created, nil
}

// Get returns a pull request by number.
func (s *Service) Get(ctx context.Context, owner, repo string, number int) (PR, error) {
	p, _, err := s.gh.PullRequests.Get(ctx, owner, repo, number)
	if err != nil {
		return PR{}, s.wrap(err, "read pull request #%d of %s/%s", number, owner, repo)
	}
	return toPR(p), nil
}

func toPR(p *github.PullRequest) PR {
	state := p.GetState()
	if p.GetMerged() || p.MergedAt != nil {
		state = StateMerged
	}
	return PR{
		Number: p.GetNumber(), URL: p.GetHTMLURL(), State: state, HeadSHA: p.GetHead().GetSHA(),
		Title: p.GetTitle(), Body: p.GetBody(), Labels: labelNames(p.Labels),
	}
}

func labelNames(ls []*github.Label) []string {
	out := make([]string, 0, len(ls))
	for _, l := range ls {
		out = append(out, l.GetName())
	}
	sort.Strings(out)
	return out
}

// wrap says what failed; GitHub's message (from the response body, which a proxy or a GHES instance
// may fill with anything) is sanitized here, where it enters.
func (s *Service) wrap(err error, format string, args ...any) error {
	err = s.scrub.Error(err)
	var ge *github.ErrorResponse
	if errors.As(err, &ge) && ge.Response != nil && ge.Response.StatusCode == http.StatusNotFound {
		return fmt.Errorf("%s: %w (%v)", fmt.Sprintf(format, args...), ErrNotFound, err)
	}
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, args...), err)
}

// Summary is the input of Describe.
type Summary struct {
	Base, Path       string
	Added, Modified  []string
	Removed          []string
	PromotedCommitID string
	PromotedChanged  bool
	// Removal is true when the change removes a destroyed resource's files.
	Removal bool
	// MovedFrom is the old path of a move on Base that the same change empties, and Vacated the files it
	// removes there (relative to MovedFrom).
	MovedFrom string
	Vacated   []string
}

// Describe returns a title and a Markdown body summarising the assignment
// changes: file counts per cluster type (the first segment of each changed path).
func Describe(s Summary) (title, body string) {
	type counts struct{ added, modified, removed int }
	per := map[string]*counts{}
	get := func(p string) *counts {
		ct := "(root)"
		if i := strings.Index(p, "/"); i > 0 {
			ct = p[:i]
		}
		if per[ct] == nil {
			per[ct] = &counts{}
		}
		return per[ct]
	}
	for _, p := range s.Added {
		get(p).added++
	}
	for _, p := range s.Modified {
		get(p).modified++
	}
	for _, p := range s.Removed {
		get(p).removed++
	}
	names := make([]string, 0, len(per))
	for n := range per {
		names = append(names, n)
	}
	sort.Strings(names)

	n := len(s.Added) + len(s.Modified) + len(s.Removed)
	title = fmt.Sprintf("Kalypso: update %s (%d cluster type%s, %d file%s)", s.Base, len(per), plural(len(per)), n, plural(n))
	if n == 0 && s.PromotedChanged {
		title = fmt.Sprintf("Kalypso: promote %s to %s", s.Base, s.PromotedCommitID)
	}
	var b strings.Builder
	if s.MovedFrom != "" {
		moved := n + len(s.Vacated)
		title = fmt.Sprintf("Kalypso: move %s to %s on %s (%d file%s)", displayPath(s.MovedFrom), displayPath(s.Path), s.Base, moved, plural(moved))
		fmt.Fprintf(&b, "The kalypso_gitops_commit moves from `%s` to `%s` on `%s`: merging this pull request writes the new path and removes "+
			"%d file%s from the old one, and clusters prune what leaves their folders. The table counts the new path.\n\n", displayPath(s.MovedFrom), displayPath(s.Path), s.Base, len(s.Vacated), plural(len(s.Vacated)))
	}
	if s.Removal {
		title = fmt.Sprintf("Kalypso: remove %s from %s (resource destroyed, %d file%s)", displayPath(s.Path), s.Base, n, plural(n))
		fmt.Fprintf(&b, "Removal of the files under `%s` on `%s`: the kalypso_gitops_commit that wrote them was destroyed. "+
			"Merging this pull request empties that path, and clusters prune what leaves their folders.\n\n", displayPath(s.Path), s.Base)
	} else if s.MovedFrom == "" {
		fmt.Fprintf(&b, "Assignment changes rendered by Terraform for `%s` on `%s`.\n\n", displayPath(s.Path), s.Base)
	}
	if len(names) > 0 {
		b.WriteString("| cluster type | added | modified | removed |\n|---|---:|---:|---:|\n")
		for _, name := range names {
			c := per[name]
			fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", name, c.added, c.modified, c.removed)
		}
	}
	if s.PromotedCommitID != "" {
		fmt.Fprintf(&b, "\nPromoted commit: `%s`", s.PromotedCommitID)
		if s.PromotedChanged {
			b.WriteString(" (changed)")
		}
		b.WriteString("\n")
	}
	return title, b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func displayPath(p string) string {
	if p == "" {
		return "."
	}
	return p
}
