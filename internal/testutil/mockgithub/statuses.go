// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package mockgithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"time"
)

// Status is the server-side commit status record
// (https://docs.github.com/en/rest/commits/statuses).
type Status struct {
	ID          int64
	State       string // error, failure, pending or success
	Context     string
	Description string
	TargetURL   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	// Creator is the login of the account that posted it; DefaultCreator when empty.
	Creator string
}

// DefaultCreator posts the statuses that name no creator: the account of the clusters' reconcilers.
const DefaultCreator = "flux"

// AddStatus records a status on owner/repo@sha as if it had been posted at st.UpdatedAt (now when
// zero): tests seed statuses of the past this way, for soak times, without waiting.
func (s *Server) AddStatus(repo, sha string, st Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addStatus(repo, sha, st)
}

func (s *Server) addStatus(repo, sha string, st Status) *Status {
	if st.UpdatedAt.IsZero() {
		st.UpdatedAt = time.Now().UTC()
	}
	if st.CreatedAt.IsZero() {
		st.CreatedAt = st.UpdatedAt
	}
	if st.Context == "" {
		st.Context = "default"
	}
	if st.Creator == "" {
		st.Creator = DefaultCreator
	}
	st.ID = int64(len(s.statuses)+1)*1000 + int64(len(s.statuses[repo+"@"+sha]))
	p := &st
	s.statuses[repo+"@"+sha] = append(s.statuses[repo+"@"+sha], p)
	return p
}

// createStatus is POST /repos/{owner}/{repo}/statuses/{sha}.
func (s *Server) createStatus(w http.ResponseWriter, r *http.Request, repo, sha string) {
	var in struct {
		State       string `json:"state"`
		TargetURL   string `json:"target_url"`
		Description string `json:"description"`
		Context     string `json:"context"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Problems parsing JSON"})
		return
	}
	switch in.State {
	case "error", "failure", "pending", "success":
	default:
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed",
			"errors": []map[string]any{{"resource": "Status", "field": "state", "code": "custom", "message": "state is not included in the list"}}})
		return
	}
	st := s.addStatus(repo, sha, Status{State: in.State, Context: in.Context, Description: in.Description, TargetURL: in.TargetURL})
	writeJSON(w, http.StatusCreated, renderStatus(st))
}

// listStatuses is GET /repos/{owner}/{repo}/commits/{ref}/statuses: every status, newest first.
func (s *Server) listStatuses(w http.ResponseWriter, r *http.Request, repo, ref string) {
	all := s.statuses[repo+"@"+ref]
	out := make([]*Status, 0, len(all))
	for i := len(all) - 1; i >= 0; i-- {
		out = append(out, all[i])
	}
	page(w, r, out, nil)
}

// combinedStatus is GET /repos/{owner}/{repo}/commits/{ref}/status: the latest status of each context,
// the combined state (failure if any is error or failure, pending if any is pending or none exists,
// success otherwise) and total_count, the number of contexts; statuses are paginated.
func (s *Server) combinedStatus(w http.ResponseWriter, r *http.Request, repo, ref string) {
	latest := map[string]*Status{}
	for _, st := range s.statuses[repo+"@"+ref] {
		if cur, ok := latest[st.Context]; !ok || !st.UpdatedAt.Before(cur.UpdatedAt) {
			latest[st.Context] = st
		}
	}
	list := make([]*Status, 0, len(latest))
	for _, st := range latest {
		list = append(list, st)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Context < list[j].Context })
	state := "success"
	if len(list) == 0 {
		state = "pending"
	}
	for _, st := range list {
		switch st.State {
		case "error", "failure":
			state = "failure"
		case "pending":
			if state != "failure" {
				state = "pending"
			}
		}
	}
	page(w, r, list, func(statuses []map[string]any) any {
		return map[string]any{"state": state, "sha": ref, "total_count": len(list), "statuses": statuses}
	})
}

// page writes one page (per_page, default 30, at most 100; page from 1) with GitHub's Link header.
func page(w http.ResponseWriter, r *http.Request, all []*Status, wrap func([]map[string]any) any) {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	per = min(per, 100)
	n, _ := strconv.Atoi(r.URL.Query().Get("page"))
	n = max(n, 1)
	from := min((n-1)*per, len(all))
	to := min(from+per, len(all))
	items := make([]map[string]any, 0, to-from)
	for _, st := range all[from:to] {
		items = append(items, renderStatus(st))
	}
	if to < len(all) {
		u := *r.URL
		q := u.Query()
		q.Set("page", strconv.Itoa(n+1))
		u.RawQuery = q.Encode()
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next"`, r.Host, u.String()))
	}
	if wrap == nil {
		writeJSON(w, http.StatusOK, items)
		return
	}
	writeJSON(w, http.StatusOK, wrap(items))
}

func renderStatus(st *Status) map[string]any {
	return map[string]any{
		"id": st.ID, "node_id": fmt.Sprintf("SC_%d", st.ID), "state": st.State, "context": st.Context,
		"description": st.Description, "target_url": st.TargetURL,
		"created_at": st.CreatedAt.UTC().Format(time.RFC3339), "updated_at": st.UpdatedAt.UTC().Format(time.RFC3339),
		"creator": map[string]any{"login": st.Creator, "id": len(st.Creator)},
	}
}

// Age moves every status of owner/repo@sha d into the past, as if d had passed since they were posted.
func (s *Server) Age(repo, sha string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.statuses[repo+"@"+sha] {
		st.CreatedAt, st.UpdatedAt = st.CreatedAt.Add(-d), st.UpdatedAt.Add(-d)
	}
}
