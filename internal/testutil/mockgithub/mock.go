// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package mockgithub is an httptest server that implements the few GitHub REST
// endpoints the provider uses (pull request list/create/get/update, add issue
// labels, commit statuses: create, list, combined), following GitHub's documented contract. It is a mock because
// github.com is unreachable from the test machines. Paths are served under
// /api/v3/ like GitHub Enterprise Server, so tests use it as github_base_url.
package mockgithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// PR is the server-side pull request record.
type PR struct {
	Number int
	Title  string
	Body   string
	Head   string
	Base   string
	State  string // open or closed
	Merged bool
	Labels []string
}

// Server is the mock. Token, when set, must be sent as "Authorization: Bearer <token>" or "token <token>".
type Server struct {
	*httptest.Server
	Token string

	mu       sync.Mutex
	prs      map[string]map[int]*PR // "owner/repo" -> number -> PR
	next     int
	statuses map[string][]*Status // "owner/repo@sha" -> statuses, oldest first
	Calls    []string
	// Intercept, when set, sees every request first (after authentication) and answers it when it
	// returns true: tests use it for malformed answers and outages.
	Intercept func(w http.ResponseWriter, r *http.Request) bool
}

// Start starts the mock until the test ends.
func Start(t testing.TB, token string) *Server {
	s := New(token)
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// New is the mock, not started yet: a caller that must serve on a given address (tools/mockgithub, for
// `make demo`) replaces Listener before calling Start.
func New(token string) *Server {
	s := &Server{Token: token, prs: map[string]map[int]*PR{}, next: 1, statuses: map[string][]*Status{}}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the value for github_base_url.
func (s *Server) BaseURL() string { return s.URL + "/api/v3/" }

// PRs returns copies of the pull requests of owner/repo, by number.
func (s *Server) PRs(repo string) []PR {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []PR
	for _, p := range s.prs[repo] {
		c := *p
		c.Labels = append([]string(nil), p.Labels...)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out
}

// SetState marks a pull request merged (merged=true) or closed.
func (s *Server) SetState(repo string, number int, merged bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.prs[repo][number]; p != nil {
		p.State, p.Merged = "closed", merged
	}
}

// CallCount returns how many requests matched "METHOD /path-prefix".
func (s *Server) CallCount(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.Calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Calls = append(s.Calls, r.Method+" "+r.URL.Path)
	if s.Token != "" {
		a := r.Header.Get("Authorization")
		if a != "Bearer "+s.Token && a != "token "+s.Token {
			writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"})
			return
		}
	}
	if s.Intercept != nil && s.Intercept(w, r) {
		return
	}
	parts := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, "/api/v3"), "/"), "/")
	// repos/{owner}/{repo}/pulls[/{n}] and repos/{owner}/{repo}/issues/{n}/labels
	if len(parts) < 4 || parts[0] != "repos" {
		notFound(w)
		return
	}
	repo := parts[1] + "/" + parts[2]
	base := s.URL
	switch {
	case parts[3] == "pulls" && len(parts) == 4 && r.Method == http.MethodGet:
		q := r.URL.Query()
		state := q.Get("state")
		if state == "" {
			state = "open"
		}
		out := []map[string]any{}
		for _, p := range s.sorted(repo) {
			if state != "all" && p.State != state {
				continue
			}
			if h := q.Get("head"); h != "" && h != parts[1]+":"+p.Head {
				continue
			}
			if b := q.Get("base"); b != "" && b != p.Base {
				continue
			}
			out = append(out, s.render(base, repo, p))
		}
		writeJSON(w, http.StatusOK, out)
	case parts[3] == "pulls" && len(parts) == 4 && r.Method == http.MethodPost:
		var in struct{ Title, Head, Base, Body string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Title == "" || in.Head == "" || in.Base == "" {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed"})
			return
		}
		for _, p := range s.prs[repo] {
			if p.State == "open" && p.Head == in.Head && p.Base == in.Base {
				writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed",
					"errors": []map[string]any{{"resource": "PullRequest", "code": "custom", "message": "A pull request already exists for " + parts[1] + ":" + in.Head + "."}}})
				return
			}
		}
		if s.prs[repo] == nil {
			s.prs[repo] = map[int]*PR{}
		}
		p := &PR{Number: s.next, Title: in.Title, Body: in.Body, Head: in.Head, Base: in.Base, State: "open"}
		s.next++
		s.prs[repo][p.Number] = p
		writeJSON(w, http.StatusCreated, s.render(base, repo, p))
	case parts[3] == "pulls" && len(parts) == 5:
		n, _ := strconv.Atoi(parts[4])
		p := s.prs[repo][n]
		if p == nil {
			notFound(w)
			return
		}
		switch r.Method {
		case http.MethodGet:
			writeJSON(w, http.StatusOK, s.render(base, repo, p))
		case http.MethodPatch:
			var in map[string]any
			if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
				writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Problems parsing JSON"})
				return
			}
			if v, ok := in["title"].(string); ok {
				p.Title = v
			}
			if v, ok := in["body"].(string); ok {
				p.Body = v
			}
			if v, ok := in["state"].(string); ok {
				p.State = v
			}
			writeJSON(w, http.StatusOK, s.render(base, repo, p))
		default:
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	case parts[3] == "statuses" && len(parts) == 5 && r.Method == http.MethodPost:
		s.createStatus(w, r, repo, parts[4])
	case parts[3] == "commits" && len(parts) == 6 && parts[5] == "statuses" && r.Method == http.MethodGet:
		s.listStatuses(w, r, repo, parts[4])
	case parts[3] == "commits" && len(parts) == 6 && parts[5] == "status" && r.Method == http.MethodGet:
		s.combinedStatus(w, r, repo, parts[4])
	case parts[3] == "issues" && len(parts) == 6 && parts[5] == "labels" && r.Method == http.MethodPost:
		n, _ := strconv.Atoi(parts[4])
		p := s.prs[repo][n]
		if p == nil {
			notFound(w)
			return
		}
		// GitHub accepts {"labels": [...]} or a bare array of names.
		var raw json.RawMessage
		var names []string
		if err := json.NewDecoder(r.Body).Decode(&raw); err == nil {
			if json.Unmarshal(raw, &names) != nil {
				var in struct{ Labels []string }
				if json.Unmarshal(raw, &in) != nil {
					writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Problems parsing JSON"})
					return
				}
				names = in.Labels
			}
		}
		for _, l := range names {
			if !contains(p.Labels, l) {
				p.Labels = append(p.Labels, l)
			}
		}
		writeJSON(w, http.StatusOK, labels(p.Labels))
	default:
		notFound(w)
	}
}

func (s *Server) sorted(repo string) []*PR {
	var out []*PR
	for _, p := range s.prs[repo] {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number > out[j].Number })
	return out
}

func (s *Server) render(base, repo string, p *PR) map[string]any {
	owner := strings.Split(repo, "/")[0]
	m := map[string]any{
		"id": 1000 + p.Number, "number": p.Number, "state": p.State, "title": p.Title, "body": p.Body,
		"html_url": fmt.Sprintf("%s/%s/pull/%d", base, repo, p.Number),
		"url":      fmt.Sprintf("%s/api/v3/repos/%s/pulls/%d", base, repo, p.Number),
		"head":     map[string]any{"ref": p.Head, "label": owner + ":" + p.Head},
		"base":     map[string]any{"ref": p.Base, "label": owner + ":" + p.Base},
		"merged":   p.Merged,
		"labels":   labels(p.Labels),
	}
	if p.Merged {
		m["merged_at"] = time.Now().UTC().Format(time.RFC3339)
	}
	return m
}

func labels(ls []string) []map[string]any {
	out := []map[string]any{}
	for i, l := range ls {
		out = append(out, map[string]any{"id": i + 1, "name": l})
	}
	return out
}

func contains(ls []string, s string) bool {
	for _, l := range ls {
		if l == s {
			return true
		}
	}
	return false
}

func notFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, map[string]any{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
