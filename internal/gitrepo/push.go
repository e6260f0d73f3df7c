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
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"

	"github.com/kalypso/terraform-provider-kalypso/internal/sanitize"
)

// push sends objs in one pack and updates ref from old to target in a single
// receive-pack command. The server applies the update only if ref still holds
// old (compare-and-swap), so a concurrent writer is never overwritten; that case
// returns errRejected.
//
// When the apply wrote objs to a pack (pack holds them all), that file is sent as it is. go-git's
// encoder would read the 350k objects of a first delivery back, search deltas among them and compress
// them again at zlib's default level: 40 to 80 s of a first apply over smart HTTP. The pack is
// undeltified, and larger for it, but valid for every server: git's index-pack takes it as any other.
func (s *session) push(ctx context.Context, ref plumbing.ReferenceName, old, target plumbing.Hash, objs []plumbing.Hash, pack *writtenPack) (err error) {
	start := time.Now()
	sent := "encoded"
	defer func() {
		s.debug(ctx, "git push", start, err, map[string]any{"ref": ref.String(), "old": old.String(), "new": target.String(), "objects": len(objs), "pack": sent})
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
	if current != old {
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
	if pack == nil || !pack.holds(uniq) {
		pack = nil
	} else {
		sent = "the apply's pack"
	}
	rd, wr := io.Pipe()
	req.Packfile = rd
	done := make(chan error, 1)
	go func() {
		if err := sendPack(wr, s.repo.Storer, uniq, pack); err != nil {
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
			return fmt.Errorf("%w: %v", errRejected, sanitize.Error(err))
		}
		return classify(err)
	}
	if err := <-done; err != nil {
		return err
	}
	if report != nil {
		if err := report.Error(); err != nil {
			if isRejection(err) {
				return fmt.Errorf("%w: %v", errRejected, sanitize.Error(err))
			}
			return fmt.Errorf("the remote refused the push: %w", sanitize.Error(err))
		}
	}
	return nil
}

// sendPack writes the pack of a push holding objs: the apply's own pack when there is one (it holds
// them all), else (a few loose objects) one encoded by go-git, with deltas against nearby objects.
func sendPack(w io.Writer, st storer.EncodedObjectStorer, objs []plumbing.Hash, pack *writtenPack) error {
	if pack != nil {
		f, err := pack.open()
		if err != nil {
			return err
		}
		_, err = io.Copy(w, f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	_, err := packfile.NewEncoder(w, st, false).Encode(objs, 10)
	return err
}
