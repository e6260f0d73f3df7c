# Policy for `terraform show -json <planfile>` (OPA 1.x, Rego v1): refuse a kalypso_gitops_commit
# plan that deletes Kubernetes objects of a protected namespace, deletes too many files, or destroys
# the resource, or passes a closed change window by break-glass without a ticket. Run it with: opa eval -d gitops_commit.rego -i plan.json 'data.kalypso.gitops.deny'
package kalypso.gitops

# Namespaces whose objects no plan may delete.
protected_namespaces := {"kube-system", "flux-system"}

# How many files one plan may delete.
max_deletes := 10

gitops_commits contains rc if {
	some rc in input.resource_changes
	rc.type == "kalypso_gitops_commit"
}

# A delete's diff holds the removed content: look for the namespace in it.
deny contains msg if {
	some rc in gitops_commits
	some path, change in rc.change.after.changes
	change.action == "delete"
	some ns in protected_namespaces
	regex.match(sprintf(`(?m)^\s*namespace:\s*["']?%s["']?\s*$`, [ns]), change.diff)
	msg := sprintf("%s deletes %s, which holds objects in namespace %s", [rc.address, path, ns])
}

# changes_counts counts every changed file, also past max_changes.
deny contains msg if {
	some rc in gitops_commits
	n := to_number(rc.change.after.changes_counts.delete)
	n > max_deletes
	msg := sprintf("%s deletes %d files, more than %d", [rc.address, n, max_deletes])
}

# Past max_changes a deletion is counted but not listed, so the rule on protected namespaces cannot
# read its content: refuse such a plan until max_changes lists every deletion.
deny contains msg if {
	some rc in gitops_commits
	total := to_number(rc.change.after.changes_counts.delete)
	listed := count([path | some path, change in rc.change.after.changes; change.action == "delete"])
	listed < total
	msg := sprintf("%s deletes %d files but lists %d of them; raise max_changes so that every deletion is checked", [rc.address, total, listed])
}

# A destroy deletes everything under path (deletion_protection refuses it unless turned off).
deny contains msg if {
	some rc in gitops_commits
	"delete" in rc.change.actions
	msg := sprintf("%s is destroyed, which deletes every file under its path", [rc.address])
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
