// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

// Terraform plans every resource again right before it applies it, and refuses an apply whose values
// differ from the plan's ("Provider produced inconsistent final plan"). A rollout's decision depends on
// what the clusters reported and on the clock: a status that arrives, or a soak time that passes, between
// the plan and its apply would change it. The waves step therefore keeps each decision in the local
// render store, under a key of everything else it depends on, and a plan with the same key within
// WavesDecisionTTL shows the kept decision again when it is still safe: holding a wave back always is,
// and writing a wave is while every earlier wave is still done. When it is not, the plan is refused with
// a request to plan again, and nothing is written. The apply drops the resource's decisions (DropWaves),
// and so does a plan that changes nothing (no apply follows it): the next plan decides afresh.

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/rollout"
)

// WavesDecisionTTL is how long a plan's wave decision stands for a plan with the same inputs: the plan
// Terraform makes again before applying, and any plan made meanwhile without an apply (a plan-only run
// delays the rollout by at most this). A saved plan applied later is planned afresh.
const WavesDecisionTTL = 10 * time.Minute

type wavesStamp struct {
	At   time.Time         `json:"at"`
	Plan *rollout.WavePlan `json:"plan"`
}

// wavesKey names the decisions of one resource from one prior state, one configuration and one branch
// commit.
func (p *Planning) wavesKey(head, managed string) string {
	h := sha256.New()
	var commit, content string
	if p.Prior != nil {
		commit, content = p.Prior.CommitSHA, p.Prior.ContentHash
	}
	r := *p.Rollout
	r.Source, r.Now = nil, time.Time{}
	cfg, _ := json.Marshal(struct {
		Rollout  Rollout
		Promoted *string
	}{r, p.Config.Resource.PromotedCommitID})
	fmt.Fprintf(h, "%s\n%s\n%s\n%s\n%s\n%s\n%s\n", p.ID, commit, content, p.Rendered.ConfigKey, head, managed, cfg)
	if p.Rendered.ConfigKey == "" { // files mode: the files are the configuration
		names := make([]string, 0, len(p.Rendered.Files))
		for n := range p.Rendered.Files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(h, "%s\x00%s\x00", n, gitrepo.BlobID(p.Rendered.Files[n]))
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// keptDecision returns the decision to show: the kept one of the same key when it is recent and still
// safe, fresh otherwise (and keeps it). A kept decision that is no longer safe is a refusal.
func (p *Planning) keptDecision(key string, fresh *rollout.WavePlan) (*rollout.WavePlan, error) {
	s := p.Store
	if s == nil {
		return fresh, nil
	}
	path := filepath.Join(s.wavesDir(p.ID), key+".json")
	var kept wavesStamp
	if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &kept) == nil && kept.Plan != nil {
		if age := p.Rollout.Now.Sub(kept.At); age >= 0 && age < WavesDecisionTTL {
			if stillSafe(kept.Plan, fresh) {
				return kept.Plan, nil
			}
			_ = os.Remove(path)
			return nil, &Refusal{Attribute: "rollout", Summary: "The rollout changed since the plan", Detail: fmt.Sprintf(
				"kalypso_gitops_commit %s: the plan wrote wave %s, and a cluster of an earlier wave has reported otherwise since "+
					"(%s). Nothing was written. Run terraform plan again.", p.ID, writing(kept.Plan), firstNotDone(fresh))}
		}
	}
	b, err := json.Marshal(wavesStamp{At: p.Rollout.Now, Plan: fresh})
	if err == nil && gitrepo.WriteFileAtomic(path, b) == nil {
		gitrepo.TrimOldest(filepath.Dir(path), renderStoreRecords)
	} else {
		p.log("cannot keep the rollout's decision in the render store", map[string]any{"error": fmt.Sprint(err)})
	}
	return fresh, nil
}

// stillSafe reports whether the kept decision may stand now: it writes no wave, or every wave before the
// one it writes is still done.
func stillSafe(kept, fresh *rollout.WavePlan) bool {
	if len(kept.Waves) != len(fresh.Waves) {
		return false
	}
	for i, w := range kept.Waves {
		if w.Writes {
			for j := 0; j < i; j++ {
				if fresh.Waves[j].State != rollout.WaveDone {
					return false
				}
			}
			return true
		}
	}
	return true
}

func writing(w *rollout.WavePlan) string {
	for _, s := range w.Waves {
		if s.Writes {
			return s.Name
		}
	}
	return "(none)"
}

func firstNotDone(w *rollout.WavePlan) string {
	for _, s := range w.Waves {
		if s.State != rollout.WaveDone {
			return s.Name + " " + s.Reason
		}
	}
	return "every wave is done"
}

// wavesDir holds the kept decisions of resource id.
func (s *RenderStore) wavesDir(id string) string {
	return filepath.Join(s.dir, "waves", fmt.Sprintf("%x", sha256.Sum256([]byte(id)))[:32])
}

// DropWaves forgets the kept wave decisions of resource id: its apply is done, or its plan changed
// nothing, so no apply-time plan will follow.
func (s *RenderStore) DropWaves(id string) {
	if s == nil {
		return
	}
	_ = os.RemoveAll(s.wavesDir(id))
}
