# Policy for `terraform show -json <planfile>` (OPA 1.x, Rego v1) on kalypso_gitops_commit plans. It
# refuses a plan that takes Kubernetes objects out of a protected namespace (by deleting their file, or
# by an update that moves an object, renames a Namespace or retargets what a reconciler deploys),
# deletes too many files, lists fewer deletions than it counts, destroys the resource's files, or
# passes a closed change window by break-glass without a ticket.
# Run it with: opa eval -d gitops_commit.rego -i plan.json 'data.kalypso.gitops.deny'
package kalypso.gitops

# Namespaces no plan may take objects out of. An object is in its own namespace (metadata.namespace;
# a Namespace is in itself). A reconciler (a Flux GitRepository or Kustomization, an Argo CD
# Application) is also in the namespace it deploys into (spec.targetNamespace,
# spec.destination.namespace), since removing it prunes what it deployed there; in its home namespace
# (reconciler_homes) it counts only there: Kalypso writes one set of reconcilers into flux-system per
# assignment, and removing an ordinary assignment removes them. Flux's own controllers in flux-system
# are not reconcilers of that kind, and stay protected.
protected_namespaces := {"kube-system", "flux-system"}

reconciler_homes := {"flux-system", "argocd"}

# How many files one plan may delete. Files a move writes again at its new location do not count.
max_deletes := 10

# The reconciler objects: by API group, and by kind when a diff's context does not show the apiVersion.
reconciler_groups := {"source.toolkit.fluxcd.io", "kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io", "argoproj.io"}

reconciler_kinds := {"GitRepository", "OCIRepository", "HelmRepository", "Bucket", "HelmChart", "Kustomization", "HelmRelease", "Application", "ApplicationSet"}

gitops_commits contains rc if {
	some rc in input.resource_changes
	rc.type == "kalypso_gitops_commit"
}

changes(rc) := object.get(rc.change, ["after", "changes"], {})

deletions(rc) := {path: change |
	some path, change in changes(rc)
	change.action == "delete"
}

# --- Deleted files: their diff holds the removed content ---

deny contains msg if {
	some rc in gitops_commits
	some path, change in deletions(rc)
	not moved(rc, path, change)
	some ns in content_namespaces(change.diff)
	ns in protected_namespaces
	msg := sprintf("%s deletes %s, which holds objects in namespace %s", [rc.address, path, ns])
}

# The YAML documents of a file, split at `---` lines as Flux reads them.
documents(text) := [d |
	some d in regex.split(`(?m)^---[ \t]*(#.*)?$`, text)
	trim_space(d) != ""
]

is_reconciler(obj) if split(object.get(obj, "apiVersion", ""), "/")[0] in reconciler_groups

is_reconciler(obj) if object.get(obj, "kind", "") in reconciler_kinds

# The namespaces an object is in, as far as removing it goes.
namespaces_of(obj) := own_namespaces(obj) | deploy_namespaces(obj)

own_namespaces(obj) := {n | obj.kind == "Namespace"; n := obj.metadata.name} | {n | n := obj.metadata.namespace; not home(obj, n)}

deploy_namespaces(obj) := {n | is_reconciler(obj); n := obj.spec.targetNamespace} | {n | is_reconciler(obj); n := obj.spec.destination.namespace}

# A reconciler in its home namespace.
home(obj, ns) if {
	is_reconciler(obj)
	ns in reconciler_homes
}

# Documents that are not YAML mappings (a template's broken output) are searched for a protected
# namespace line instead.
content_namespaces(text) := {ns |
	some d in documents(text)
	yaml.is_valid(d)
	obj := yaml.unmarshal(d)
	is_object(obj)
	some ns in namespaces_of(obj)
} | {ns |
	some d in documents(text)
	not is_object_document(d)
	some ns in protected_namespaces
	regex.match(sprintf(`(?m)^\s*(namespace|targetNamespace|name):\s*["']?%s["']?\s*$`, [ns]), d)
}

is_object_document(d) if {
	yaml.is_valid(d)
	is_object(yaml.unmarshal(d))
}

# --- Updated files: their diff is a unified diff with 3 lines of context ---

deny contains msg if {
	some rc in gitops_commits
	some path, change in changes(rc)
	change.action == "update"
	some r in update_removals(change.diff)
	msg := sprintf("%s updates %s, which %s namespace %s", [rc.address, path, r[1], r[0]])
}

# The hunks of a unified diff: the old side of each (context and removed lines, in order) and the set of
# its added lines.
hunks(diff) := [h |
	lines := split(diff, "\n")
	starts := [i | some i, l in lines; startswith(l, "@@")]
	some k, s in starts
	body := array.slice(lines, s + 1, hunk_end(starts, k, count(lines)))
	h := {
		"old": [{"text": substring(l, 1, -1), "removed": startswith(l, "-")} | some l in body; regex.match(`^[ -]`, l)],
		"added": {substring(l, 1, -1) | some l in body; startswith(l, "+")},
	}
]

hunk_end(starts, k, _) := starts[k + 1] if k + 1 < count(starts)

hunk_end(starts, k, n) := n if k + 1 >= count(starts)

# [namespace, what the update does to it] for each protected namespace a removed line leaves.
update_removals(diff) := {[m[3], what] |
	some h in hunks(diff)
	some i, line in h.old
	line.removed
	not line.text in h.added
	some m in regex.find_all_string_submatch_n(`^(\s*)(namespace|targetNamespace|name):\s*["']?([^"'\s#]+)["']?\s*(#.*)?$`, line.text, 1)
	m[3] in protected_namespaces
	seg := segment(h.old, i)
	what := removal(m[2], parent(h.old, seg[0], i), m[3], h.old, seg)
}

# The document around old-side line i: [first, end) between `---` lines (or the hunk's edges).
segment(old, i) := [first, end] if {
	starts := {k | some j, l in old; j < i; regex.match(`^---`, l.text); k := j + 1}
	ends := {j | some j, l in old; j > i; regex.match(`^---`, l.text)}
	first := max(starts | {0})
	end := min(ends | {count(old)})
}

indent(text) := count(text) - count(trim_left(text, " "))

# The key that line i is nested in ("metadata:", "destination:"), or "" when the hunk does not show it.
parent(old, first, i) := trim_space(old[max(candidates)].text) if {
	candidates := {j | some j, l in old; j >= first; j < i; trim_space(l.text) != ""; indent(l.text) < indent(old[i].text)}
	count(candidates) > 0
}

parent(old, first, i) := "" if {
	count({j | some j, l in old; j >= first; j < i; trim_space(l.text) != ""; indent(l.text) < indent(old[i].text)}) == 0
}

segment_shows_reconciler(old, seg) if {
	some j in numbers.range(seg[0], seg[1] - 1)
	m := regex.find_all_string_submatch_n(`^(apiVersion|kind):\s*["']?([^"'\s/]+)`, old[j].text, 1)[0]
	m[2] in (reconciler_groups | reconciler_kinds)
}

segment_kind(old, seg) := m[1] if {
	some j in numbers.range(seg[0], seg[1] - 1)
	m := regex.find_all_string_submatch_n(`^kind:\s*["']?([^"'\s]+)`, old[j].text, 1)[0]
}

removal(field, _, _, _, _) := "retargets what a reconciler deploys away from" if field == "targetNamespace"

removal(field, parent_key, _, _, _) := "retargets what a reconciler deploys away from" if {
	field == "namespace"
	parent_key == "destination:"
}

# An object's own namespace line: under metadata, or where the hunk does not show what it is under.
removal(field, parent_key, ns, old, seg) := "moves an object out of" if {
	field == "namespace"
	parent_key in {"metadata:", ""}
	not home_of_shown_reconciler(old, seg, ns)
}

home_of_shown_reconciler(old, seg, ns) if {
	segment_shows_reconciler(old, seg)
	ns in reconciler_homes
}

removal(field, parent_key, _, old, seg) := "renames a Namespace away from" if {
	field == "name"
	parent_key == "metadata:"
	segment_kind(old, seg) == "Namespace"
}

# --- Counts, destroys and moves ---

# changes_counts counts every changed file, also past max_changes. Deletions that a move writes again
# at its new location take nothing away.
deny contains msg if {
	some rc in gitops_commits
	total := to_number(rc.change.after.changes_counts.delete)
	n := total - count({path | some path, change in deletions(rc); moved(rc, path, change)})
	n > max_deletes
	msg := sprintf("%s deletes %d files, more than %d", [rc.address, n, max_deletes])
}

# Past max_changes a deletion is counted but not listed, so the rules above cannot read its content:
# refuse such a plan until max_changes lists every deletion.
deny contains msg if {
	some rc in gitops_commits
	total := to_number(rc.change.after.changes_counts.delete)
	listed := count(deletions(rc))
	listed < total
	msg := sprintf("%s deletes %d files but lists %d of them; raise max_changes so that every deletion is checked", [rc.address, total, listed])
}

# A destroy deletes everything under path, unless the files are retained (retain_on_destroy = true
# removes the resource from state and leaves the branch alone).
deny contains msg if {
	some rc in gitops_commits
	"delete" in rc.change.actions
	not rc.change.before.retain_on_destroy
	msg := sprintf("%s is destroyed, which deletes every file under its path", [rc.address])
}

# A move (a change of repository_url, branch or path) deletes each file at the old location and creates
# it at the new one. A deletion is moved when the plan creates the same content under the same name
# below the new path.
moved(rc, path, change) if {
	before := rc.change.before
	after := rc.change.after
	location(before) != location(after)
	rel := trim_prefix(path, old_prefix(before, after))
	rel != path
	created := changes(rc)[concat("", [new_prefix(after), rel])]
	created.action == "create"
	created.diff == change.diff
}

location(s) := [s.repository_url, s.branch, s.path]

# How the plan names a file at a location: <path>/<file> on the resource's branch, <branch>:<path>/<file>
# on another branch, <repository_url>@<branch>:<path>/<file> in another repository.
path_prefix(p) := "" if p in {".", ""}

path_prefix(p) := concat("", [trim_suffix(p, "/"), "/"]) if not p in {".", ""}

new_prefix(after) := path_prefix(after.path)

old_prefix(before, after) := path_prefix(before.path) if {
	before.repository_url == after.repository_url
	before.branch == after.branch
}

old_prefix(before, after) := concat("", [before.branch, ":", path_prefix(before.path)]) if {
	before.repository_url == after.repository_url
	before.branch != after.branch
}

old_prefix(before, after) := concat("", [before.repository_url, "@", before.branch, ":", path_prefix(before.path)]) if {
	before.repository_url != after.repository_url
}

# A break-glass lets a change through a closed change window (change_windows); it must name the
# ticket that records why, which the commit then carries as its Kalypso-Ticket trailer.
deny contains msg if {
	some rc in gitops_commits
	glass := rc.change.after.break_glass
	glass != null
	object.get(glass, "ticket", null) in {null, ""}
	msg := sprintf("%s uses break_glass without a ticket", [rc.address])
}
