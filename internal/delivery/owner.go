// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
)

// Ownership across states. The ownership record at the root of a resource's path (OwnerMarker) says
// that one kalypso_gitops_commit manages the files below it. Its content is the resource's identity: the
// path, and for a resource that took the path over (adopt = true) the commit whose record it replaced
// (`adopted_from`, kept in state). Two resources in two states or workspaces never see each other's
// plans, so the record is what they share: a plan that finds at its path a record this resource did not
// write (a create, a move onto that path, or an update whose record was rewritten by someone else) is
// refused, naming the record (repository, branch, path, and the commit that wrote it, with its time,
// read from the branch's history), and nothing is written. Taking a path over is explicit: adopt = true
// rewrites the record with `adopted_from`, so the previous owner is refused at its next plan; terraform
// import reads the record as it is.

// adoptedFromKey is the record's line that names the commit whose record a resource took over.
const adoptedFromKey = "adopted_from: "

// OwnerRecord is the ownership record of path (root-relative, "." for the root) written by a resource
// that took the path over from the record of commit adoptedFrom ("" for the resource that claimed it first).
func OwnerRecord(path, adoptedFrom string) []byte {
	rec := MarkerContent(path)
	if adoptedFrom != "" {
		rec = append(rec, adoptedFromKey+adoptedFrom+"\n"...)
	}
	return rec
}

// AdoptedFrom reads the adopted_from line of an ownership record ("" when it has none).
func AdoptedFrom(record []byte) string {
	for _, line := range strings.Split(string(record), "\n") {
		if v, ok := strings.CutPrefix(line, adoptedFromKey); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Claim is the commit that wrote a record's current content: when and by which commit the path was claimed.
type Claim struct {
	Commit string
	Time   time.Time
	// Earlier is true when the history walked (gitrepo.MaxHistory commits) holds the content throughout:
	// the claim is that commit or an earlier one.
	Earlier bool
}

// FindClaim walks branch's first-parent history for the commit that wrote record at the root-relative
// file name.
func FindClaim(ctx context.Context, c *gitrepo.Client, repoURL, branch, name string, record []byte) (Claim, error) {
	log, err := c.Log(ctx, repoURL, branch, gitrepo.MaxHistory, name)
	if err != nil {
		return Claim{}, err
	}
	var claim Claim
	for i, e := range log {
		if !bytes.Equal(e.File, record) {
			return claim, nil
		}
		claim = Claim{Commit: e.Commit, Time: e.Time, Earlier: i == len(log)-1 && len(log) == gitrepo.MaxHistory}
	}
	return claim, nil
}

// describe is "commit 0123abcd… of 2026-11-27 08:00 UTC".
func (c Claim) describe() string {
	if c.Commit == "" {
		return "a commit the history does not show"
	}
	s := fmt.Sprintf("commit %s of %s", c.Commit, c.Time.UTC().Format("2006-01-02 15:04 MST"))
	if c.Earlier {
		s = "commit " + c.Commit + " or an earlier one"
	}
	return s
}

// ownRecord is the ownership record this resource's state says it wrote at its path, nil when a record at
// the plan's location cannot be this resource's: on create (unless it replaces the object in place) and on
// a move.
func (p *Planning) ownRecord() []byte {
	switch {
	case p.Prior != nil && p.Move == nil:
		return OwnerRecord(displayPath(p.Prior.Resource.Path), p.Prior.Resource.AdoptedFrom)
	case p.Prior == nil && p.Replaces != nil:
		return OwnerRecord(displayPath(p.Replaces.Resource.Path), p.Replaces.Resource.AdoptedFrom)
	}
	return nil
}

// checkOwner refuses a plan that finds at its path an ownership record this resource did not write,
// or, with adopt = true, takes the path over: the record is rewritten with adopted_from, and the change
// set read again with it.
func (p *Planning) checkOwner(ctx context.Context) error {
	cs := p.Changes
	if cs == nil || cs.Record == nil {
		return nil
	}
	if own := p.ownRecord(); own != nil && bytes.Equal(cs.Record, own) {
		p.keepTakeOver(cs.Record)
		return nil
	}
	if p.Prior == nil && p.tookOver(cs.Record) {
		return nil
	}
	r := p.Config.Resource
	name := MarkerPath(r.Path)
	claim, err := FindClaim(ctx, p.Git, r.RepoURL, r.Branch, name, cs.Record)
	if err != nil {
		return Explain(p.ID, gitError("Cannot read the history of the ownership record", err))
	}
	previous := ""
	if from := AdoptedFrom(cs.Record); from != "" {
		previous = ", which took the path over from the record of commit " + from
	}
	what := fmt.Sprintf("path %q on branch %q of %s is owned by another kalypso_gitops_commit: its ownership record %s was written by %s%s",
		displayPath(r.Path), r.Branch, r.RepoURL, name, claim.describe(), previous)
	if !r.Adopt {
		return &Refusal{Attribute: "path", Summary: "The path is owned by another resource", Detail: fmt.Sprintf(
			"kalypso_gitops_commit %s: %s. That resource, in another configuration, state or workspace, manages these files, and this plan "+
				"would take them over. Nothing was written. To manage the path from this configuration, take it over explicitly: set adopt = true "+
				"(the plan shows the takeover; the other resource is refused at its next plan), or import it (terraform import <address> '%s'). "+
				"If this resource was tainted (terraform taint), run terraform untaint and replace it with terraform apply -replace instead", p.ID, what, p.ID)}
	}
	if claim.Commit == "" {
		return &Refusal{Attribute: "adopt", Summary: "Cannot take the path over", Detail: fmt.Sprintf(
			"kalypso_gitops_commit %s: %s, and the branch's history does not show that commit. Nothing was written. Remove the record by hand, then plan again", p.ID, what)}
	}
	p.Config.Resource.AdoptedFrom = claim.Commit
	if p.Changes, err = p.readBranch(ctx); err != nil {
		return Explain(p.ID, err)
	}
	p.Warn("The resource takes the path over", fmt.Sprintf("kalypso_gitops_commit %s: adopt = true: %s. The apply rewrites the record "+
		"(adopted_from: %s) with the changes below; the resource that wrote it is refused at its next plan", p.ID, what, claim.Commit))
	return nil
}

// A replacement's create is planned twice more at apply, without the first plan's private state: Terraform
// plans it again right before applying it. Destroy first (the default), the destroy of the replaced object
// ran in this process and handed the location over (Locations.HandOver); with create_before_destroy
// nothing ran yet, and the plan's take-over travels through the local render store, as plan stamps do.

// takeOverKey names the take-over of record by the create of resource id in the render store.
func takeOverKey(id string, record []byte) string {
	return StampKey("take-over", id, string(record), "")
}

// keepTakeOver records, for the create of a replacement in place, that it takes record over.
func (p *Planning) keepTakeOver(record []byte) {
	if p.Prior != nil || p.Replaces == nil || p.Store == nil {
		return
	}
	if err := p.Store.SaveStamp(takeOverKey(p.ID, record), PlanStamp{Build: p.Build, Values: "take-over"}); err != nil {
		p.log("cannot keep the take-over of a replacement in the render store", map[string]any{"error": err.Error()})
	}
}

// DropTakeOver forgets the take-over of the record of r by the create of resource id once it applied.
func DropTakeOver(store *RenderStore, id string, r Resource) {
	store.DropStamp(takeOverKey(id, OwnerRecord(displayPath(r.Path), r.AdoptedFrom)))
}

// tookOver reports whether this create is the apply of a replacement that takes record over.
func (p *Planning) tookOver(record []byte) bool {
	r := p.Config.Resource
	if dir, err := gitrepo.CleanPath(p.Config.RawPath); err == nil && p.Locations.HandedOver(p.repoKey(r.RepoURL), r.Branch, dir) {
		return true
	}
	return p.Store != nil && p.Store.LoadStamp(takeOverKey(p.ID, record)) != nil
}
