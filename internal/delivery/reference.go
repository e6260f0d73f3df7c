// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

// The mass-deletion guard's reference. A guard that compares each change with the files on the branch
// is a ratchet: 20 files -> 10 -> 5 -> 0 in three applies, each under half of what was there. The
// reference is the largest number of files the resource has delivered under its path, kept in state
// (deletion_reference, a decimal string: a number in state trips hashicorp/terraform#36403). A change
// that leaves fewer than (100 - max_delete_percent)% of the reference is refused like a mass deletion.
// max_delete_percent = 100 is the explicit override: the apply it allows resets the reference to what
// it leaves. A move starts the reference afresh at the new location.

import (
	"context"
	"fmt"
	"strconv"
)

// DeletionReference is the reference the state records after an apply that leaves remaining files under
// the path, from the prior reference (0 for none) and max_delete_percent.
func DeletionReference(prior, remaining, maxPercent int) int {
	if maxPercent >= 100 || remaining > prior {
		return remaining
	}
	return prior
}

// CheckShrink refuses a change that leaves remaining of the reference's files under the path, when the
// reference is at least MassDeletionMinFiles and more than maxPercent of it would be gone.
func CheckShrink(reference, remaining, maxPercent int) error {
	if maxPercent >= 100 || reference < MassDeletionMinFiles || remaining >= reference || (reference-remaining)*100 <= reference*maxPercent {
		return nil
	}
	gone := reference - remaining
	return fmt.Errorf("the change leaves %d of the %d files this resource has delivered under the path at most (%d%% gone, more than max_delete_percent = %d), "+
		"counting the deletions of earlier applies: a series of smaller deletions adds up like one. Clusters prune what is deleted from their folders, "+
		"so check the changes in the plan; if the environment is meant to shrink, set max_delete_percent = 100 for this apply, which also "+
		"makes what it leaves the new reference (deletion_reference)", remaining, reference, gone*100/reference, maxPercent)
}

// ParseReference reads deletion_reference from state: 0 when it is empty (a state written before the
// attribute, or imported) or not a count.
func ParseReference(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// planReference refuses a change that walks the files under the path down past max_delete_percent of the
// reference, and sets the reference the apply records (Planning.Reference; "" while the change set is not
// known, or when the plan changes nothing and keeps the state's).
func planReference(_ context.Context, p *Planning) error {
	cs := p.Changes
	if cs == nil {
		return nil
	}
	if cs.Empty() {
		if p.Prior == nil { // a create that finds its files there: they are the reference
			p.Reference = strconv.Itoa(cs.CurrentFiles)
		}
		return nil // an update that writes nothing keeps the state's
	}
	prior := 0
	if p.Prior != nil && p.Move == nil {
		prior = p.Prior.DeletionReference
	}
	percent := p.Config.Resource.MaxDeletePercent
	if cs.Deleted() > 0 && !cs.Withdraws {
		if err := CheckShrink(prior, cs.DesiredFiles, percent); err != nil {
			return &Refusal{Attribute: "max_delete_percent", Summary: "The change deletes most files under path",
				Detail: fmt.Sprintf("kalypso_gitops_commit %s: %s. Nothing was written.", p.ID, err)}
		}
	}
	p.Reference = strconv.Itoa(DeletionReference(max(prior, cs.CurrentFiles), cs.DesiredFiles, percent))
	return nil
}
