// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/gitserver"
)

// testClock is the clock the provider factories of these tests hand the provider (KalypsoProvider.now):
// the only way to move the time change_windows is decided at.
type testClock struct {
	mu   sync.Mutex
	now  time.Time
	next []time.Time // the times of the next readings, before now
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.next) > 0 {
		c.now, c.next = c.next[0], c.next[1:]
	}
	return c.now
}

func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now, c.next = t, nil
}

// Then makes the next readings return times, one each, and the last one after.
func (c *testClock) Then(times ...time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next = times
}

func providerAt(clock *testClock) func() provider.Provider {
	return func() provider.Provider { return &KalypsoProvider{version: "test", caches: testCaches, now: clock.Now} }
}

// newClockRig is a lifecycleRig whose provider reads clock.
func newClockRig(t *testing.T, clock *testClock) *lifecycleRig {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	r := &lifecycleRig{t: t, work: t.TempDir(), root: t.TempDir()}
	r.repo = gitserver.NewSeededRepo(t, r.root, "fleet.git", "main", gitopsOutside)
	r.tf = newTerraformCLIWith(t, r.work, providerAt(clock))
	return r
}

// officeHours is the calendar of the guide: weekdays 08:00 to 17:00 in Berlin, and a two-week year-end freeze.
const officeHours = `  change_windows = {
    time_zone = "Europe/Berlin"
    allow     = [{ schedule = "0 8 * * 1-5", duration = "9h" }]
    deny      = [{ schedule = "0 0 20 12 *", duration = "336h", description = "year-end freeze" }]
  }
`

func berlin(t *testing.T, value string) time.Time {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.ParseInLocation("2006-01-02 15:04", value, loc)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// TestAccGitopsCommit_ChangeWindows: a change planned inside the window applies; one planned outside
// fails at plan naming the window and when the next opens; a plan made at 16:59 and applied at 17:01 (as
// two workers would) is refused at apply and writes nothing; a freeze names its description; a plan that
// writes nothing is never blocked.
func TestAccGitopsCommit_ChangeWindows(t *testing.T) {
	t.Parallel()
	clock := &testClock{now: berlin(t, "2026-11-25 10:00")} // a Wednesday
	r := newClockRig(t, clock)
	url := "file://" + r.repo
	v1 := map[string]string{"drone/t1/namespace.yaml": "kind: Namespace\n"}
	r.write(lifecycleResource(url, v1, officeHours))
	r.must("apply", "-auto-approve")
	r.expectMain(fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v1)), 2)

	v2 := map[string]string{"drone/t1/namespace.yaml": "kind: Namespace\nmetadata: {}\n"}
	r.write(lifecycleResource(url, v2, officeHours))
	clock.Set(berlin(t, "2026-11-25 17:01"))
	out := r.expectExit(1, "plan")
	expectOutput(t, "a plan after closing time", out, `Error: Change window closed`, `change window closed now: Wed 2026-11-25 17:01 CET \(\+01:00\) lies outside every allow window; the next change window opens Thu 2026-11-26 08:00 CET \(\+01:00\)`,
		`Nothing was written`, `break_glass`)

	// Planned at 16:59, applied at 17:01 by another worker: refused, the branch unchanged.
	clock.Set(berlin(t, "2026-11-25 16:59"))
	r.must("plan", "-out=late.tfplan")
	clock.Set(berlin(t, "2026-11-25 17:01"))
	head := gitserver.Head(t, r.repo, "main")
	out = r.expectExit(1, "apply", "late.tfplan")
	expectOutput(t, "the apply of a plan made before closing time", out, `Error: Change window closed`, `change window closed`, `Thu 2026-11-26 08:00 CET`)
	// Terraform plans again before it applies a saved plan: the apply itself decides too, should the
	// window close between the two (one reading each).
	clock.Set(berlin(t, "2026-11-25 16:59"))
	r.must("plan", "-out=late.tfplan")
	clock.Then(berlin(t, "2026-11-25 16:59").Add(59*time.Second), berlin(t, "2026-11-25 17:00"))
	out = r.expectExit(1, "apply", "late.tfplan")
	expectOutput(t, "an apply one second after its re-plan", out, `Error: Change window closed`, `change window closed at apply time`, `Wed 2026-11-25 17:00 CET`)
	if got := gitserver.Head(t, r.repo, "main"); got != head {
		t.Fatalf("a refused apply moved the branch from %s to %s", head, got)
	}

	// The freeze wins over office hours and says what it is.
	clock.Set(berlin(t, "2026-12-22 10:00"))
	out = r.expectExit(1, "plan")
	expectOutput(t, "a plan in the freeze", out, `deny window "year-end freeze" \(0 0 20 12 \*, 336h\) is open from Sun 2026-12-20 00:00 CET \(\+01:00\) until Sun 2027-01-03 00:00 CET \(\+01:00\); the next change window opens Mon 2027-01-04 08:00 CET`)

	// A plan that writes nothing is never blocked, not even in the freeze.
	r.write(lifecycleResource(url, v1, officeHours))
	r.expectExit(0, "plan", "-detailed-exitcode")

	// Back in office hours the change applies.
	clock.Set(berlin(t, "2027-01-04 08:00"))
	r.write(lifecycleResource(url, v2, officeHours))
	r.must("apply", "-auto-approve")
	r.expectMain(fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v2)), 3)
	r.expectExit(0, "plan", "-detailed-exitcode")
}

// TestAccGitopsCommit_BreakGlass: break_glass lets one change through a closed window. The plan warns,
// `terraform show -json` carries it, the example OPA policy denies it without a ticket, and the commit
// carries its trailers. The same break-glass does not let a second change through.
func TestAccGitopsCommit_BreakGlass(t *testing.T) {
	t.Parallel()
	clock := &testClock{now: berlin(t, "2026-11-25 10:00")}
	r := newClockRig(t, clock)
	url := "file://" + r.repo
	v1 := map[string]string{"drone/t1/namespace.yaml": "kind: Namespace\n"}
	r.write(lifecycleResource(url, v1, officeHours))
	r.must("apply", "-auto-approve")

	clock.Set(berlin(t, "2026-12-24 03:00"))
	v2 := map[string]string{"drone/t1/namespace.yaml": "kind: Namespace\nmetadata:\n  labels: {fix: cve}\n"}
	glass := officeHours + "  break_glass = { reason = \"CVE-2026-0001 hotfix\", ticket = \"INC-4711\" }\n"
	r.write(lifecycleResource(url, v2, glass))
	out := r.must("plan", "-out=glass.tfplan")
	expectOutput(t, "a break-glass plan", out, `Warning: Break-glass: change window closed`, `year-end freeze`,
		`break_glass lets this change through \(reason "CVE-2026-0001 hotfix", ticket INC-4711\)`, `\+ break_glass\s+= \{`)
	var shown struct {
		ResourceChanges []struct {
			Change struct {
				After struct {
					BreakGlass map[string]any `json:"break_glass"`
				} `json:"after"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if js := r.tf.mustRun("show", "-json", "glass.tfplan"); json.Unmarshal([]byte(js), &shown) != nil || len(shown.ResourceChanges) != 1 ||
		!reflect.DeepEqual(shown.ResourceChanges[0].Change.After.BreakGlass, map[string]any{"reason": "CVE-2026-0001 hotfix", "ticket": "INC-4711"}) {
		t.Errorf("show -json does not carry break_glass: %+v", shown)
	}
	r.must("apply", "glass.tfplan")
	r.expectMain(fixtures.Merge(gitopsOutside, gitopsManaged("clusters", v2)), 3)
	msg := gitserver.Git(t, r.repo, nil, "log", "-1", "--format=%B", "main")
	trailers := gitserver.Git(t, r.repo, []byte(msg), "interpret-trailers", "--parse")
	if want := "Kalypso-Break-Glass: CVE-2026-0001 hotfix\nKalypso-Ticket: INC-4711"; strings.TrimSpace(trailers) != want {
		t.Errorf("the commit's trailers are %q, want %q; message:\n%s", trailers, want, msg)
	}
	r.expectExit(0, "plan", "-detailed-exitcode")

	// The same break-glass does not let another change through.
	v3 := map[string]string{"drone/t1/namespace.yaml": "kind: Namespace\nmetadata: {}\n"}
	r.write(lifecycleResource(url, v3, glass))
	out = r.expectExit(1, "plan")
	expectOutput(t, "a second change under the same break-glass", out, `Error: Break-glass already used`, `let one change through already`, `INC-4711`)

	opa := opaOrSkip(t)
	r.write(lifecycleResource(url, v3, officeHours+"  break_glass = { reason = \"second hotfix\" }\n"))
	r.must("plan", "-out=noticket.tfplan")
	if got := r.policyDenies(opa, "noticket.tfplan"); !reflect.DeepEqual(got, []string{"kalypso_gitops_commit.test uses break_glass without a ticket"}) {
		t.Errorf("the policy on a break-glass without ticket denies %q", got)
	}
	r.write(lifecycleResource(url, v3, officeHours+"  break_glass = { reason = \"second hotfix\", ticket = \"INC-4712\" }\n"))
	r.must("plan", "-out=ticket.tfplan")
	if got := r.policyDenies(opa, "ticket.tfplan"); len(got) != 0 {
		t.Errorf("the policy on a break-glass with a ticket denies %q", got)
	}
}

// TestAccGitopsCommit_ChangeWindowsInvalid: each mistake is an error at its attribute that says what to write.
func TestAccGitopsCommit_ChangeWindowsInvalid(t *testing.T) {
	t.Parallel()
	r := newClockRig(t, &testClock{now: berlin(t, "2026-11-25 10:00")})
	url := "file://" + r.repo
	files := map[string]string{"drone/t1/namespace.yaml": "kind: Namespace\n"}
	for _, c := range []struct{ extra, want string }{
		{"  change_windows = { time_zone = \"Local\" }\n", `change_windows.time_zone: "Local" depends on the machine`},
		{"  change_windows = { allow = [{ schedule = \"0 8 * *\", duration = \"9h\" }] }\n", `change_windows.allow\[0\].schedule: "0 8 \* \*" has 4 fields`},
		{"  change_windows = { deny = [{ schedule = \"0 0 31 2 *\", duration = \"1d\" }] }\n", `never matches`},
		{"  break_glass = { reason = \"a\\nb\" }\n", `break_glass.reason holds a line break`},
	} {
		r.write(lifecycleResource(url, files, c.extra))
		out := r.expectExit(1, "plan")
		expectOutput(t, "validate", out, c.want)
		if strings.Contains(c.extra, "1d") {
			expectOutput(t, "validate", out, `days are written in hours`)
		}
	}
}

// TestAccGitopsCommit_ChangeWindowsOpenTofu: OpenTofu plans, refuses (at plan, and at the apply of a plan made
// before the window closed) and applies alike.
func TestAccGitopsCommit_ChangeWindowsOpenTofu(t *testing.T) {
	t.Parallel()
	bin := tofuOrSkip(t)
	clock := &testClock{now: berlin(t, "2026-11-25 17:01")}
	r := newClockRig(t, clock)
	r.tf.bin = bin
	url := "file://" + r.repo
	files := map[string]string{"drone/t1/namespace.yaml": "kind: Namespace\n"}
	r.write(lifecycleResource(url, files, officeHours))
	out := r.expectExit(1, "plan")
	expectOutput(t, "tofu plan", out, `Change window closed`, `Thu 2026-11-26 08:00 CET`)
	// Planned at 16:59, applied at 17:01: the apply refuses it and writes nothing.
	clock.Set(berlin(t, "2026-11-25 16:59"))
	r.must("plan", "-out=late.tfplan")
	clock.Set(berlin(t, "2026-11-25 17:01"))
	out = r.expectExit(1, "apply", "late.tfplan")
	expectOutput(t, "tofu apply of a plan made before closing time", out, `Error: Change window closed`, `Thu 2026-11-26 08:00 CET`)
	r.expectMain(gitopsOutside, 1)
	clock.Set(berlin(t, "2026-11-26 08:00"))
	r.must("apply", "-auto-approve")
	r.expectMain(fixtures.Merge(gitopsOutside, gitopsManaged("clusters", files)), 2)
}

// TestAccExampleChangeWindows plays examples/change-windows under Terraform and OpenTofu against a local
// bare repository: in the year-end freeze the plan is refused; a break-glass passes with its trailers;
// the next plan is empty although break_glass stays set.
func TestAccExampleChangeWindows(t *testing.T) {
	t.Parallel()
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "change-windows", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	// The full source address: OpenTofu's default registry is another host.
	config := strings.Replace(string(example), `source = "kalypso/kalypso"`, `source = "registry.terraform.io/kalypso/kalypso"`, 1)
	for _, cli := range []string{"terraform", "tofu"} {
		t.Run(cli, func(t *testing.T) {
			t.Parallel()
			bin := "terraform"
			if cli == "tofu" {
				bin = tofuOrSkip(t)
			}
			clock := &testClock{now: berlin(t, "2026-12-23 09:30")}
			r := newClockRig(t, clock)
			r.tf.bin = bin
			repo := gitserver.NewSeededRepo(t, r.root, "prod.git", "prod", map[string]string{"README.md": "# prod\n"})
			if err := os.WriteFile(filepath.Join(r.work, "main.tf"), []byte(config), 0o600); err != nil {
				t.Fatal(err)
			}
			vars := "gitops_repo = " + gitopsHCL("file://"+repo) + "\n"
			if err := os.WriteFile(filepath.Join(r.work, "terraform.tfvars"), []byte(vars), 0o600); err != nil {
				t.Fatal(err)
			}
			r.tf.mustRun("init", "-input=false", "-no-color")
			out := r.expectExit(1, "plan")
			expectOutput(t, cli+" plan in the freeze", out, `Error: Change window closed`, `"year-end freeze"`, `the next change window opens Mon 2027-01-04 08:00 CET`)
			glass := `-var=break_glass={ reason = "CVE-2026-0001 hotfix", ticket = "INC-4711" }`
			out = r.must("apply", "-auto-approve", glass)
			expectOutput(t, cli+" apply with break-glass", out, `Break-glass: change window closed`)
			msg := gitserver.Git(t, repo, nil, "log", "-1", "--format=%B", "prod")
			if trailers := gitserver.Git(t, repo, []byte(msg), "interpret-trailers", "--parse"); strings.TrimSpace(trailers) != "Kalypso-Break-Glass: CVE-2026-0001 hotfix\nKalypso-Ticket: INC-4711" {
				t.Errorf("trailers %q in:\n%s", trailers, msg)
			}
			r.expectExit(0, "plan", "-detailed-exitcode", glass)
		})
	}
}

// TestAccGitopsCommit_RollbackDuringFreeze: a rollback waits for the freeze like any change, unless
// change_windows.rollback_during_freeze lets it through the deny window (with a warning).
func TestAccGitopsCommit_RollbackDuringFreeze(t *testing.T) {
	t.Parallel()
	clock := &testClock{now: berlin(t, "2026-12-18 10:00")}
	r := newClockRig(t, clock)
	url := "file://" + r.repo
	v1 := map[string]string{"drone/t1/namespace.yaml": "kind: Namespace\n"}
	v2 := map[string]string{"drone/t1/namespace.yaml": "kind: Namespace\nmetadata: {}\n"}
	r.write(lifecycleResource(url, v1, officeHours))
	r.must("apply", "-auto-approve")
	good := gitserver.Head(t, r.repo, "main")
	r.write(lifecycleResource(url, v2, officeHours))
	r.must("apply", "-auto-approve")

	clock.Set(berlin(t, "2026-12-22 10:00"))
	rollback := fmt.Sprintf("  rollback = { to = %q }\n", good)
	r.write(lifecycleResource(url, v2, officeHours+rollback))
	out := r.expectExit(1, "plan")
	expectOutput(t, "a rollback in the freeze", out, `Error: Change window closed`, `year-end freeze`)
	during := strings.Replace(officeHours, "  change_windows = {\n", "  change_windows = {\n    rollback_during_freeze = true\n", 1)
	r.write(lifecycleResource(url, v2, during+rollback))
	out = r.must("apply", "-auto-approve")
	expectOutput(t, "a rollback through the freeze", out, `Warning: Change window closed`, `the rollback passes a closed change window`, `rollback_during_freeze`)
	if diff := gitserver.Git(t, r.repo, nil, "diff", good, "main", "--", "clusters"); diff != "" {
		t.Errorf("after the rollback, git diff %s main -- clusters:\n%s", good, diff)
	}
}
