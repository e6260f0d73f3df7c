// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/hostile"
)

// hostileRolloutConfig reads dev's rollout from a status source, promotes stage with it and renders
// stage's GitOps commit: promotionConfig without the token in the configuration (it comes from
// GIT_TOKEN, so that no saved plan holds it) and with short bounds.
func hostileRolloutConfig(r promotionRepos, provider, source string) string {
	return fmt.Sprintf(`
provider "kalypso" {
  allow_loopback_http = true # the hostile servers are plain http on 127.0.0.1
  `+shortRequestTimeout+`
  api_read_timeout    = "20s"
  api_max_retry_after = "2s"
  %[3]s
}

data "kalypso_rollout" "dev" {
  environment    = "dev"
  repository_url = %[1]q
  branch         = "dev"
  expected       = { min_clusters = 1 }
  %[4]s
  promotion = {
    to            = "stage"
    control_plane = { repo = %[2]q }
  }
}

data "kalypso_control_plane" "main" {
  git = {
    repo   = %[2]q
    branch = "main"
    commit = data.kalypso_rollout.dev.promotion_commit
  }
}

resource "kalypso_gitops_commit" "stage" {
  repository_url      = %[1]q
  deletion_protection = false # the test framework destroys what the test created
  branch              = "stage"
  path                = "clusters"
  files               = { for ct in data.kalypso_control_plane.main.cluster_types : "${ct}/README.md" => ct }
  promoted_commit_id  = data.kalypso_rollout.dev.promotion_commit
}
`, "file://"+filepath.ToSlash(r.gitops), "file://"+filepath.ToSlash(r.cp), provider, source)
}

// hostileStep is one hostile answer: the handler the source serves and what the plan's error says.
type hostileStep struct {
	name    string
	handler http.Handler
	want    []string
	// bigNotSlow marks an answer that is large but served at full speed: its step raises
	// api_request_timeout, so that the bound under test (the body cap) is what fails, however loaded the
	// machine is (at 1s, a loaded machine timed out before reading 16 MiB).
	bigNotSlow bool
}

// shortRequestTimeout is the request timeout of hostileRolloutConfig, which the slow-loris case needs.
const shortRequestTimeout = `api_request_timeout = "1s"`

// hostileSteps turns the cases into steps after a first good read (which creates state and writes stage
// once); each fails the plan with its error, and the last step checks that stage did not move after the
// first.
func hostileSteps(t *testing.T, r promotionRepos, cfg string, api *hostile.Server, good http.Handler, cases []hostileStep) []resource.TestStep {
	var stageHead string
	steps := []resource.TestStep{{PreConfig: func() { api.SetHandler(good) }, Config: cfg}}
	for _, c := range cases {
		re := "(?s)"
		for _, w := range c.want {
			re += ".*" + spaceTolerant(regexp.QuoteMeta(w))
		}
		stepConfig := cfg
		if c.bigNotSlow {
			stepConfig = strings.Replace(cfg, shortRequestTimeout, `api_request_timeout = "120s"`, 1)
		}
		steps = append(steps, resource.TestStep{
			PreConfig: func() {
				if stageHead == "" {
					stageHead = gitserver.Head(t, r.gitops, "stage")
				}
				t.Logf("case %s", c.name)
				api.SetHandler(c.handler)
			},
			Config: stepConfig, PlanOnly: true, ExpectError: regexp.MustCompile(re),
		})
	}
	return append(steps, resource.TestStep{
		PreConfig: func() {
			api.SetHandler(good)
			if got := gitserver.Head(t, r.gitops, "stage"); got != stageHead {
				t.Errorf("stage moved from %s to %s during the hostile answers", stageHead, got)
			}
		},
		Config: cfg, PlanOnly: true,
	})
}

// TestAccRollout_HostileGitHubStatusSource: kalypso_rollout's github_statuses against a status API that
// answers as a hostile or broken server: a redirect to another host, a slow-loris, endless pages, a huge
// body, a 429 with Retry-After: 55, and the token echoed in a 401's body and in X-GitHub-Request-Id. Each
// plan fails with the bound's error naming what raises it; the other host never sees the token; stage's
// branch does not move; and the token is in no plan output, state, saved plan or TF_LOG=trace line.
func TestAccRollout_HostileGitHubStatusSource(t *testing.T) {
	r := newPromotionRepos(t)
	work, logPath := gitopsTraceLog(t)
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GIT_TOKEN", rolloutToken)
	other := hostile.Start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("[]")) }))
	api := hostile.Start(t, http.NotFoundHandler())
	good := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-GitHub-Request-Id", "REQ "+r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("[]"))
	})
	endless := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := strconv.Atoi(r.URL.Query().Get("page"))
		p = max(p, 1)
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?per_page=100&page=%d>; rel="next"`, r.Host, r.URL.Path, p+1))
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode([]map[string]any{{"context": fmt.Sprintf("ci/check-%d", p), "state": "success"}})
	})
	cfg := hostileRolloutConfig(r, "github_base_url = "+strconv.Quote(api.URL+"/api/v3/"), "github_statuses = {}")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: hostileSteps(t, r, cfg, api, good, []hostileStep{
			{name: "307 to another host", handler: hostile.Redirect(other.URL, http.StatusTemporaryRedirect),
				want: []string{"Error: Cannot read the rollout of dev", "redirect to another host refused", "no credential is sent there", "nothing was written"}},
			{name: "slow-loris", handler: hostile.SlowLoris(100 * time.Millisecond),
				want: []string{"Error: Cannot read the rollout of dev", "did not answer within 1s (api_request_timeout)", "raise api_request_timeout"}},
			{name: "endless pages", handler: endless,
				want: []string{"Error: Cannot read the rollout of dev", "endless pagination", "this limit has no setting"}},
			{name: "64 MiB body", handler: hostile.HugeBody(`[{"context":"kustomization/dev/a","state":"success","description":"`, 64<<20, 'x', `"}]`),
				want: []string{"Error: Cannot read the rollout of dev", "answer too large", "more than 16777216 bytes"}, bigNotSlow: true},
			{name: "429 with Retry-After: 55", handler: hostile.Throttle(http.StatusTooManyRequests, "55"),
				want: []string{"Error: Cannot read the rollout of dev", "throttled", "retry after 55s", "raise api_max_retry_after"}},
			{name: "token echoed in a 401", handler: hostile.Echo(http.StatusUnauthorized),
				want: []string{"Error: Cannot read the rollout of dev", "401 denied for Bearer REDACTED"}},
		}),
	})
	if a := other.Authorizations(); len(other.Requests()) > 0 || len(a) > 0 {
		t.Errorf("the redirect's target saw %d requests, with credentials %q", len(other.Requests()), a)
	}
	basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + rolloutToken))
	gitopsScanForSecrets(t, work, logPath, []string{"github request"}, rolloutToken, basic)
}

// hostileAzureToken is what the test credential hands out, shaped like an Entra ID access token.
const hostileAzureToken = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJrYWx5cHNvLXRlc3QifQ.aG9zdGlsZS1henVyZS1zaWduYXR1cmU"

type hostileAzureCredential struct{}

func (hostileAzureCredential) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: hostileAzureToken, ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// TestAccRollout_HostileResourceGraph: kalypso_rollout's azure_resource_graph against an endpoint that
// echoes the bearer token in a 401 and a 500 (before, printed twice in the plan and once in TF_LOG=trace),
// pages without end with a new $skipToken and the same row (before, 100,001 requests and advice to raise
// max_clusters), and answers 429 with Retry-After: 55 (before, 3m44s and a hint at the credential).
func TestAccRollout_HostileResourceGraph(t *testing.T) { //nolint:paralleltest // gitopsTraceLog sets TF_LOG with t.Setenv for the terraform it runs
	r := newPromotionRepos(t)
	work, logPath := gitopsTraceLog(t)
	api := hostile.StartTLS(t, http.NotFoundHandler())
	row := func(cluster string) map[string]any {
		return map[string]any{"id": "/subscriptions/0000/resourceGroups/fleet/providers/Microsoft.Kubernetes/connectedClusters/" + cluster +
			"/providers/Microsoft.KubernetesConfiguration/fluxConfigurations/dev", "name": "dev", "complianceState": "Pending", "commit": "", "statusUpdatedAt": ""}
	}
	page := func(w http.ResponseWriter, body map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(body)
	}
	good := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		page(w, map[string]any{"totalRecords": 1, "count": 1, "data": []any{row("drone-1")}})
	})
	n := 0
	endless := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n++
		page(w, map[string]any{"totalRecords": 1, "count": 1, "data": []any{row("drone-1")}, "$skipToken": fmt.Sprintf("t%d", n)})
	})
	source := fmt.Sprintf(`azure_resource_graph = {
    endpoint       = %q
    subscriptions  = ["0000"]
    repository_url = "https://github.com/org/gitops"
  }`, api.URL)
	cfg := hostileRolloutConfig(r, "", source)
	factories := map[string]func() (tfprotov6.ProviderServer, error){"kalypso": providerserver.NewProtocol6WithError(&KalypsoProvider{version: "test", caches: testCaches, azure: &azureOverride{
		credential: hostileAzureCredential{},
		clientOptions: &arm.ClientOptions{ClientOptions: policy.ClientOptions{
			Transport: api.Client(),
			Retry:     policy.RetryOptions{MaxRetries: 1, RetryDelay: time.Millisecond, MaxRetryDelay: time.Millisecond},
		}},
	}})}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: factories,
		Steps: hostileSteps(t, r, cfg, api, good, []hostileStep{
			{name: "token echoed in a 401", handler: hostile.Echo(http.StatusUnauthorized),
				want: []string{"Error: Cannot read the rollout of dev", "Resource Graph answered 401", "REDACTED"}},
			{name: "token echoed in a 500", handler: hostile.Echo(http.StatusInternalServerError),
				want: []string{"Error: Cannot read the rollout of dev", "Resource Graph answered 500", "REDACTED"}},
			{name: "endless $skipToken", handler: endless,
				want: []string{"Error: Cannot read the Flux configurations", "an earlier row already held", "broken or hostile"}},
			{name: "429 with Retry-After: 55", handler: hostile.Throttle(http.StatusTooManyRequests, "55"),
				want: []string{"Error: Cannot read the rollout of dev", "throttled: Azure Resource Graph answered 429", "retry after 55s", "raise api_max_retry_after"}},
		}),
	})
	for _, req := range api.Requests() {
		if req.Authorization != "" && req.Authorization != "Bearer "+hostileAzureToken {
			t.Errorf("unexpected credential %q", req.Authorization)
		}
	}
	logText, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(logText), "raise max_clusters") {
		t.Error("an endless $skipToken advises raising max_clusters")
	}
	gitopsScanForSecrets(t, work, logPath, nil, hostileAzureToken, "aG9zdGlsZS1henVyZS1zaWduYXR1cmU")
}
