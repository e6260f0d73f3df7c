// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
)

// push sends objs in one pack and updates ref from old to target in a single
// receive-pack command. The server applies the update only if ref still holds
// old (compare-and-swap), so a concurrent writer is never overwritten; that case
// returns errRejected. With force, old is whatever the server advertises.
func (s *session) push(ctx context.Context, ref plumbing.ReferenceName, old, target plumbing.Hash, force bool, objs []plumbing.Hash) (err error) {
	start := time.Now()
	defer func() {
		s.debug(ctx, "git push", start, err, map[string]any{"ref": ref.String(), "old": old.String(), "new": target.String(), "objects": len(objs), "force": force})
	}()
	ctx, cancel := s.c.withTimeout(ctx)
	defer cancel()
	ep, err := transport.NewEndpoint(s.e.url)
	if err != nil {
		return err
	}
	ep.CaBundle = s.c.caBundle()
	cl, err := client.NewClient(ep)
	if err != nil {
		return err
	}
	sess, err := cl.NewReceivePackSession(ep, s.auth)
	if err != nil {
		return classify(err)
	}
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return classify(err)
	}
	current := plumbing.ZeroHash
	if ar != nil {
		if refs, err := ar.AllReferences(); err == nil {
			if r, ok := refs[ref]; ok {
				current = r.Hash()
			}
		}
	}
	if force {
		old = current
	} else if current != old {
		return fmt.Errorf("%w: %s is at %s on the remote, expected %s", errRejected, ref, short(current), short(old))
	}
	if current == target {
		return nil
	}

	var req *packp.ReferenceUpdateRequest
	if ar != nil {
		req = packp.NewReferenceUpdateRequestFromCapabilities(ar.Capabilities)
	} else {
		req = packp.NewReferenceUpdateRequest()
	}
	req.Commands = []*packp.Command{{Name: ref, Old: old, New: target}}

	seen := make(map[plumbing.Hash]struct{}, len(objs))
	uniq := make([]plumbing.Hash, 0, len(objs))
	for _, h := range objs {
		if _, ok := seen[h]; !ok {
			seen[h] = struct{}{}
			uniq = append(uniq, h)
		}
	}
	rd, wr := io.Pipe()
	req.Packfile = rd
	done := make(chan error, 1)
	go func() {
		enc := packfile.NewEncoder(wr, s.repo.Storer, false)
		if _, err := enc.Encode(uniq, 10); err != nil {
			done <- wr.CloseWithError(err)
			return
		}
		done <- wr.Close()
	}()
	report, err := sess.ReceivePack(ctx, req)
	if err != nil {
		_ = rd.CloseWithError(err)
		<-done //nolint:errcheck // the ReceivePack error above is the one to report
		if isRejection(err) {
			return fmt.Errorf("%w: %v", errRejected, err)
		}
		return classify(err)
	}
	if err := <-done; err != nil {
		return err
	}
	if report != nil {
		if err := report.Error(); err != nil {
			if isRejection(err) {
				return fmt.Errorf("%w: %v", errRejected, err)
			}
			return fmt.Errorf("the remote refused the push: %w", err)
		}
	}
	return nil
}
