// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/kalypso/terraform-provider-kalypso/internal/outbound"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/mockresourcegraph"
)

func fluxConfig(cluster, state, synced string) map[string]any {
	return mockresourcegraph.FluxConfiguration(cluster, "dev", state, synced, time.Date(2026, 1, 2, 11, 0, 0, 0, time.UTC))
}

func graphSource(t *testing.T, s *mockresourcegraph.Server, limit int) *AzureResourceGraph {
	t.Helper()
	client, err := NewResourceGraphClient(mockresourcegraph.Credential{}, s.URL, &arm.ClientOptions{ClientOptions: policy.ClientOptions{
		Transport: s.Client(),
		Retry:     policy.RetryOptions{MaxRetries: 2, RetryDelay: time.Millisecond, MaxRetryDelay: time.Millisecond},
	}}, outbound.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return &AzureResourceGraph{Client: client, Subscriptions: []string{"0000"}, RepoURL: "https://github.com/org/gitops", Branch: "dev's", Limit: limit}
}

// Upstream's check, read through the Azure SDK from a local HTTPS server: three pages ($skipToken), one
// throttled answer waited out, each Flux configuration's compliance and synced commit in both formats.
func TestAzureResourceGraph_PagesThrottlingAndFluxConfigurations_MockResourceGraphAPI(t *testing.T) {
	t.Parallel()
	g1, g2 := strings.Repeat("a", 40), strings.Repeat("b", 40)
	s := mockresourcegraph.Start(t, []map[string]any{
		fluxConfig("drone-1", "Compliant", "dev/"+g2),
		fluxConfig("drone-2", "Compliant", "dev@sha1:"+g2),
		fluxConfig("drone-3", "Non-Compliant", "dev/"+g2),
		fluxConfig("drone-4", "Pending", "dev/"+g1[:12]),
		fluxConfig("drone-5", "Compliant", "dev/"+g1),
	})
	s.Throttle = 1
	reports, err := graphSource(t, s, 100).Reports(context.Background(), []string{g2, g1})
	if err != nil {
		t.Fatal(err)
	}
	requests := s.Requests()
	if len(requests) != 4 {
		t.Errorf("%d requests, want 4 (one throttled, then three pages)", len(requests))
	}
	q, _ := requests[0]["query"].(string)
	if !strings.Contains(q, `== 'dev\'s'`) || !strings.Contains(q, "=~ 'https://github.com/org/gitops'") || !strings.Contains(q, "fluxconfigurations") {
		t.Errorf("query does not quote the branch or name the repository:\n%s", q)
	}
	if subs, _ := requests[0]["subscriptions"].([]any); len(subs) != 1 || subs[0] != "0000" {
		t.Errorf("subscriptions = %v", requests[0]["subscriptions"])
	}
	if tok := requests[2]["options"].(map[string]any)["$skipToken"]; tok != "row-2" {
		t.Errorf("second page asked with $skipToken %v", tok)
	}
	got := map[string]string{}
	for _, r := range reports {
		got[r.Cluster] = fmt.Sprintf("%s %s %s", r.State, r.Commit[:1], r.Message)
	}
	want := map[string]string{
		"drone-1": "succeeded b Compliant", "drone-2": "succeeded b Compliant", "drone-3": "failed b Non-Compliant",
		"drone-4": "progressing a Pending", "drone-5": "succeeded a Compliant",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reports = %v\nwant %v", got, want)
	}
	res, err := Evaluate([]Commit{{SHA: g2, Promoted: "m2"}, {SHA: g1, Promoted: "m1"}}, reports, Options{Expect: Expect{MinClusters: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if res.State != Failed || res.Summary() != "2/5 clusters succeeded, 1 failed (drone-3: dev: Non-Compliant), 2 progressing" {
		t.Errorf("%s: %s", res.State, res.Summary())
	}
}

func TestAzureResourceGraph_BadAnswers_MockResourceGraphAPI(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		answer string
		code   int
		rows   int
		limit  int
		want   error
		text   string
	}{
		{"more configurations than the limit", "", 0, 5, 3, ErrTooManyClusters, "holds 5 Flux configurations"},
		{"data that is not an object array", `{"totalRecords":1,"count":1,"resultTruncated":"false","data":{"columns":[],"rows":[]}}`, 200, 0, 10, ErrMalformedAnswer, "not an object array"},
		{"a row that is not a Flux configuration", `{"totalRecords":1,"count":1,"resultTruncated":"false","data":[{"id":"/x","name":""}]}`, 200, 0, 10, ErrMalformedAnswer, "do not name a Flux configuration"},
		{"an endless $skipToken", `{"totalRecords":1,"count":0,"resultTruncated":"false","data":[],"$skipToken":"again"}`, 200, 0, 10, ErrMalformedAnswer, "no rows but a $skipToken"},
		{"forbidden", `{"error":{"code":"AuthorizationFailed","message":"The client does not have authorization"}}`, 403, 0, 10, nil, "403 Forbidden (AuthorizationFailed)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var rows []map[string]any
			for i := range tc.rows {
				rows = append(rows, fluxConfig(fmt.Sprintf("c%d", i), "Compliant", "dev/x"))
			}
			s := mockresourcegraph.Start(t, rows)
			if tc.answer != "" {
				s.Answer = func(w http.ResponseWriter) bool {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(tc.code)
					_, _ = w.Write([]byte(tc.answer))
					return true
				}
			}
			_, err := graphSource(t, s, tc.limit).Reports(context.Background(), nil)
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("err = %v; want %v containing %q", err, tc.want, tc.text)
			}
		})
	}
}

func TestKQLString(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"dev":         `'dev'`,
		`a'b`:         `'a\'b'`,
		`a\'; drop x`: `'a\\\'; drop x'`,
		"line\nbreak": `'line\u000abreak'`,
	} {
		if got := kqlString(in); got != want {
			t.Errorf("kqlString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestAzureCredential(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if _, err := AzureCredential(AzureOIDC, env(nil), outbound.Limits{}); err == nil || !strings.Contains(err.Error(), "ARM_TENANT_ID") || !strings.Contains(err.Error(), "TFC_WORKLOAD_IDENTITY_TOKEN") {
		t.Errorf("oidc without environment: err = %v", err)
	}
	cred, err := AzureCredential(AzureOIDC, env(map[string]string{"ARM_TENANT_ID": "00000000-0000-0000-0000-000000000001", "TFC_AZURE_RUN_CLIENT_ID": "00000000-0000-0000-0000-000000000002", "TFC_WORKLOAD_IDENTITY_TOKEN": "jwt"}), outbound.Limits{})
	if err != nil || cred == nil {
		t.Errorf("oidc from HCP Terraform's variables: %v", err)
	}
	if _, err := AzureCredential("password", nil, outbound.Limits{}); err == nil || !strings.Contains(err.Error(), "use one of default, environment") {
		t.Errorf("unknown kind: err = %v", err)
	}
	for _, k := range []string{AzureCLI, AzureManagedIdentity} {
		if _, err := AzureCredential(k, env(nil), outbound.Limits{}); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
}
