// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// fixedFlateInputs are the cases of the round trips: empty, tiny, YAML like a render's, long runs (matches
// of the maximum length), every byte value, random bytes (no matches), repeats farther apart than the
// window, and the largest content written with fixed codes.
func fixedFlateInputs() [][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		return b
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	yaml := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: platform-config\n  namespace: dev-checkout-0001-functional-test\ndata:\n  REGION: East US\n  LOG_LEVEL: debug\n"
	phrase := []byte("a repeated phrase of some length")
	far := slices.Concat(random(40<<10), phrase, random(100), phrase)
	return [][]byte{
		nil, []byte("a"), []byte("abc"), []byte("abcd"), []byte("abcdabcdabcdabcd"),
		[]byte(yaml), []byte(strings.Repeat(yaml, 40)), bytes.Repeat([]byte{'x'}, 1000), bytes.Repeat([]byte{0}, 70000),
		all, bytes.Repeat(all, 2), random(700), random(fixedFlateMax), far,
	}
}

// TestFixedFlateRoundTrip: compress/zlib reads back exactly what appendZlib wrote (its reader checks the
// header and the Adler-32), for every input and with one flater reused across all of them, as the pack
// writer reuses it; what came before in dst is kept.
func TestFixedFlateRoundTrip(t *testing.T) {
	t.Parallel()
	f := &fixedFlater{}
	for round := range 2 {
		for i, in := range fixedFlateInputs() {
			out := f.appendZlib([]byte("prefix"), in)
			if !bytes.HasPrefix(out, []byte("prefix")) {
				t.Fatalf("input %d: the bytes before the stream were changed", i)
			}
			r, err := zlib.NewReader(bytes.NewReader(out[len("prefix"):]))
			if err != nil {
				t.Fatalf("round %d, input %d (%d bytes): %v", round, i, len(in), err)
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, in) {
				t.Fatalf("round %d, input %d (%d bytes): read back %d bytes, err %v", round, i, len(in), len(got), err)
			}
		}
	}
}

// TestFixedFlateNearTheTableBound: a flater whose position offset is about to pass its bound starts its
// table afresh and still writes streams that read back.
func TestFixedFlateNearTheTableBound(t *testing.T) {
	t.Parallel()
	f := &fixedFlater{base: 1<<30 - 100}
	in := []byte(strings.Repeat("kind: Namespace\n", 20))
	for range 3 {
		r, err := zlib.NewReader(bytes.NewReader(f.appendZlib(nil, in)))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, in) {
			t.Fatalf("read back %q, %v", got, err)
		}
	}
}

// TestDistCode: every distance falls in the range of its code.
func TestDistCode(t *testing.T) {
	t.Parallel()
	for d := 1; d <= fixedWindow; d++ {
		c := distCode(d)
		if c < 0 || c >= 30 || d < int(distBase[c]) || d >= int(distBase[c])+1<<distExtra[c] {
			t.Fatalf("distCode(%d) = %d, whose range is [%d, %d)", d, c, distBase[c], int(distBase[c])+1<<distExtra[c])
		}
	}
}

func FuzzFixedFlate(f *testing.F) {
	for _, in := range fixedFlateInputs() {
		if len(in) < 4096 {
			f.Add(in)
		}
	}
	fl := &fixedFlater{}
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := zlib.NewReader(bytes.NewReader(fl.appendZlib(nil, in)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, in) {
			t.Fatalf("%d bytes in, %d read back, err %v", len(in), len(got), err)
		}
	})
}

// BenchmarkFixedFlate compares the fixed-code writer with compress/zlib at BestSpeed on render-like files.
func BenchmarkFixedFlate(b *testing.B) {
	var files [][]byte
	for i := range 1000 {
		files = append(files, []byte(fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: platform-config\n  namespace: dev-app-%04d-functional-test\ndata:\n  CLUSTER_NAME: eastus-small-%04d\n  REGION: East US\n  LOG_LEVEL: debug\n  resources: |\n    cpu: 250m\n    memory: 512Mi\n  allowedRegistries: |\n    - mcr.microsoft.com\n    - ghcr.io\n    - eastus.azurecr.io\n", i, i%300)))
	}
	b.Run("fixed", func(b *testing.B) {
		f := &fixedFlater{}
		var out []byte
		for b.Loop() {
			out = out[:0]
			for _, c := range files {
				out = f.appendZlib(out, c)
			}
		}
		b.ReportMetric(float64(len(out))/float64(len(files)), "bytes/file")
	})
	b.Run("zlib", func(b *testing.B) {
		var out bytes.Buffer
		w, _ := zlib.NewWriterLevel(&out, zlib.BestSpeed)
		for b.Loop() {
			out.Reset()
			for _, c := range files {
				w.Reset(&out)
				_, _ = w.Write(c)
				_ = w.Close()
			}
		}
		b.ReportMetric(float64(out.Len())/float64(len(files)), "bytes/file")
	})
}
