// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleetstatus

import (
	"bytes"
	"fmt"
	"html/template"
	"sort"
	"strings"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// cellTargets bounds the deployment targets a matrix cell names; the drill-down lists them all.
const cellTargets = 12

// HTML is the status as one self-contained page: a matrix of cluster types (rows) by environments
// (columns), each cell the worst state of its deployment targets, and a drill-down per workload
// (deployment target) across environments and cluster types. It has no script and loads nothing: the
// styles are inline, the drill-down is <details>, and a Content-Security-Policy forbids the rest.
func (s *Status) HTML() (string, error) {
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, s.page()); err != nil {
		return "", err
	}
	return b.String(), nil
}

type page struct {
	Now          string
	Environments []EnvironmentStatus
	Types        []matrixRow
	Workloads    []workload
	Drifting     []Cluster
	Comparisons  []EnvironmentDiff
	Metrics      []Metrics
	Rows, Drift  int
}

type matrixRow struct {
	ClusterType string
	Cells       []matrixCell
}

type matrixCell struct {
	Env, ClusterType, State string
	Targets                 int
	Counts                  string
	Names                   []string
	More                    int
}

type workload struct {
	Name   string
	Envs   int
	States string
	Rows   []Row
}

// worse orders states for a cell: a failure shows over everything, a pending one over success.
var worse = map[rollout.State]int{rollout.Succeeded: 1, rollout.Unknown: 2, rollout.Progressing: 3, rollout.Failed: 4}

func (s *Status) page() page {
	p := page{Now: s.Now.UTC().Format(time.RFC3339), Environments: s.Environments, Comparisons: s.Comparisons, Metrics: s.Metrics, Rows: len(s.Rows), Drift: s.Drift}
	type key struct{ env, ct string }
	cells := map[key][]Row{}
	typeSet := map[string]bool{}
	byWorkload := map[string][]Row{}
	for _, r := range s.Rows {
		cells[key{r.Environment, r.ClusterType}] = append(cells[key{r.Environment, r.ClusterType}], r)
		typeSet[r.ClusterType] = true
		byWorkload[r.DeploymentTarget] = append(byWorkload[r.DeploymentTarget], r)
	}
	types := make([]string, 0, len(typeSet))
	for ct := range typeSet {
		types = append(types, ct)
	}
	sort.Strings(types)
	for _, ct := range types {
		mr := matrixRow{ClusterType: ct}
		for _, e := range s.Environments {
			rows := cells[key{e.Name, ct}]
			c := matrixCell{Env: e.Name, ClusterType: ct, State: "none", Targets: len(rows)}
			count := map[rollout.State]int{}
			for i, r := range rows {
				if c.State == "none" || worse[r.State] > worse[rollout.State(c.State)] {
					c.State = string(r.State)
				}
				count[r.State]++
				if i < cellTargets {
					c.Names = append(c.Names, r.DeploymentTarget)
				}
			}
			c.More = len(rows) - len(c.Names)
			c.Counts = countStates(count)
			mr.Cells = append(mr.Cells, c)
		}
		p.Types = append(p.Types, mr)
	}
	names := make([]string, 0, len(byWorkload))
	for n := range byWorkload {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		rows := byWorkload[n]
		envs := map[string]bool{}
		count := map[rollout.State]int{}
		for _, r := range rows {
			envs[r.Environment] = true
			count[r.State]++
		}
		p.Workloads = append(p.Workloads, workload{Name: n, Envs: len(envs), States: countStates(count), Rows: rows})
	}
	for _, c := range s.Clusters {
		if c.Drift {
			p.Drifting = append(p.Drifting, c)
		}
	}
	return p
}

func countStates(count map[rollout.State]int) string {
	var parts []string
	for _, st := range []rollout.State{rollout.Failed, rollout.Progressing, rollout.Unknown, rollout.Succeeded} {
		if n := count[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	return strings.Join(parts, ", ")
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"short": short,
	"time": func(t time.Time) string {
		if t.IsZero() {
			return "before the history read"
		}
		return t.UTC().Format(time.RFC3339)
	},
	"percent": func(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) },
	"join":    strings.Join,
	"orNone":  orNone,
	"plural":  plural,
	"counted": counted,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Fleet status</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5rem;color:#1f2328;background:#fff}
h1{margin:0 0 .25rem}h2{margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.25rem}
.meta{color:#59636e}table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #d0d7de;padding:.35rem .6rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}
.matrix td{min-width:11rem}.matrix ul{margin:.25rem 0 0;padding-left:1.1rem}.count{font-weight:600}
.state-succeeded{background:#dafbe1}.state-progressing{background:#fff8c5}.state-failed{background:#ffebe9}.state-unknown{background:#eaeef2}.state-none{background:#fff;color:#8c959f}
details{margin:.35rem 0;border:1px solid #d0d7de;border-radius:6px;padding:.35rem .6rem}summary{cursor:pointer;font-weight:600}
</style>
</head>
<body>
<h1>Fleet status</h1>
<p class="meta">Measured at {{.Now}}: {{plural (len .Environments) "environment"}}, {{plural .Rows "deployment target"}}, {{plural .Drift "drifting cluster"}}.</p>

<h2>Environments</h2>
<table id="environments">
<thead><tr><th>Environment</th><th>Branch</th><th>Head</th><th>Control-plane commit</th><th>State</th><th>Clusters</th></tr></thead>
<tbody>
{{- range .Environments}}
<tr class="state-{{.State}}" data-env="{{.Name}}"><td>{{.Name}}</td><td><code>{{.Branch}}</code></td><td><code>{{short .Head}}</code></td><td><code>{{short .Promoted}}</code></td><td>{{.State}}</td><td>{{.Summary}}</td></tr>
{{- end}}
</tbody>
</table>

<h2>Matrix</h2>
<table id="matrix" class="matrix">
<thead><tr><th>Cluster type</th>{{range .Environments}}<th data-env="{{.Name}}">{{.Name}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Types}}
<tr data-cluster-type="{{.ClusterType}}"><th>{{.ClusterType}}</th>
{{- range .Cells}}
<td class="cell state-{{.State}}" data-env="{{.Env}}" data-cluster-type="{{.ClusterType}}" data-state="{{.State}}" data-targets="{{.Targets}}">
{{- if .Targets}}<span class="count">{{plural .Targets "deployment target"}}</span><br>{{.Counts}}<ul>{{range .Names}}<li><a href="#workload-{{.}}">{{.}}</a></li>{{end}}{{if .More}}<li>and {{.More}} more</li>{{end}}</ul>{{else}}—{{end}}</td>
{{- end}}
</tr>
{{- end}}
</tbody>
</table>

<h2>Workloads</h2>
<div id="workloads">
{{- range .Workloads}}
<details id="workload-{{.Name}}" data-workload="{{.Name}}">
<summary>{{.Name}}: {{plural .Envs "environment"}}, {{.States}}</summary>
<table>
<thead><tr><th>Environment</th><th>Cluster type</th><th>Version</th><th>Desired commit</th><th>Control-plane commit</th><th>State</th><th>Clusters</th><th>Changed</th></tr></thead>
<tbody>
{{- range .Rows}}
<tr class="state-{{.State}}" data-env="{{.Environment}}" data-cluster-type="{{.ClusterType}}"><td>{{.Environment}}</td><td>{{.ClusterType}}</td><td>{{orNone .Version}}</td><td><code>{{short .DesiredCommit}}</code></td><td><code>{{short .Promoted}}</code></td><td>{{.State}}</td><td>{{.Succeeded}}/{{.Clusters}} succeeded</td><td>{{time .ChangedAt}}</td></tr>
{{- end}}
</tbody>
</table>
</details>
{{- end}}
</div>

{{- if .Drifting}}
<h2>Drift</h2>
<ul id="drift">
{{- range .Drifting}}
<li data-env="{{.Environment}}">{{.Environment}} / {{.ClusterType}} / {{.Name}}: reports <code>{{short .Commit}}</code> ({{.State}}), the folder is at <code>{{short .FolderCommit}}</code></li>
{{- end}}
</ul>
{{- end}}

{{- range .Comparisons}}
<h2>{{.From}} vs {{.To}}</h2>
<p>{{counted (len .Differing) "deployment target differs" "deployment targets differ"}}, {{counted .Same "is alike" "are alike"}}.</p>
<ul class="comparison">
{{- $c := .}}
{{- range .Differing}}
<li>{{.ClusterType}}/{{.DeploymentTarget}}{{if eq .Only "from"}} (only in {{$c.From}}){{else if eq .Only "to"}} (only in {{$c.To}}){{end}}:{{range .Files}} <code>{{.Path}}</code> {{.Change}}{{end}}{{if ne .FromVersion .ToVersion}}; version {{orNone .FromVersion}} → {{orNone .ToVersion}}{{end}}</li>
{{- end}}
</ul>
{{- end}}

{{- if .Metrics}}
<h2>Delivery metrics</h2>
<table id="metrics">
<thead><tr><th>Environment</th><th>Deployments</th><th>Per day</th><th>Lead time (median)</th><th>Change failure rate</th><th>Time to restore (median)</th><th>DORA keys</th></tr></thead>
<tbody>
{{- range .Metrics}}
<tr data-env="{{.Environment}}"><td>{{.Environment}}</td><td>{{.Deployments}}</td><td>{{printf "%.2f" .DeploymentsPerDay}}</td><td>{{if .LeadTimes}}{{.LeadTimeMedian}} ({{.LeadTimes}}){{else}}n/a{{end}}</td><td>{{percent .ChangeFailureRate}} ({{.Failed}})</td><td>{{if .Restores}}{{.TimeToRestoreMedian}} ({{.Restores}}){{else}}n/a{{end}}</td><td>{{join .Keys ", "}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
</body>
</html>
`))
