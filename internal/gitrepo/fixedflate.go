// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"encoding/binary"
	"hash/adler32"
	"math/bits"
)

// A first delivery of 300k assignments compresses 900k blobs of about 700 bytes each. compress/flate at
// BestSpeed builds dynamic Huffman tables for every one of them (counting, sorting and encoding the
// symbol frequencies of each block), which was two thirds of compressing them: 15 of 30 CPU seconds of
// the apply. A small file gains little from tables of its own (their description alone takes tens of
// bytes), so small blobs are written here in one block of deflate's fixed Huffman codes (RFC 1951,
// 3.2.6), after a greedy LZ77 pass with a 4-byte hash: a standard zlib stream (RFC 1950) that git, go-git
// and every inflater read. Larger files keep compress/flate, whose tables pay off there.

// fixedFlateMax is the largest content written with fixed codes; larger content goes to compress/flate.
const fixedFlateMax = 16 << 10

const (
	fixedHashBits = 12
	fixedMinMatch = 4
	fixedMaxMatch = 258
	fixedWindow   = 32 << 10
)

// fixedFlater is one goroutine's state: the hash table of the LZ77 pass, reused across inputs. Positions
// are stored offset by base, which grows past each input, so that entries of earlier inputs read as
// empty without clearing the table.
type fixedFlater struct {
	table [1 << fixedHashBits]int32
	base  int32
}

// Fixed Huffman codes, bit-reversed for the LSB-first bit order of deflate, with their lengths.
var (
	fixedLitCode [288]uint16
	fixedLitLen  [288]uint8
	fixedDist    [30]uint16 // 5-bit codes, reversed
	// Length symbols 257..285: base length and extra bits; distance codes 0..29 likewise.
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	// lengthSymbol maps a match length less 3 to its index in lengthBase.
	lengthSymbol [fixedMaxMatch - 2]uint8
)

func init() {
	for sym := range 288 {
		var code, n int
		switch {
		case sym < 144:
			code, n = 0x30+sym, 8
		case sym < 256:
			code, n = 0x190+sym-144, 9
		case sym < 280:
			code, n = sym-256, 7
		default:
			code, n = 0xc0+sym-280, 8
		}
		fixedLitCode[sym] = bits.Reverse16(uint16(code)) >> (16 - n) //nolint:gosec // code < 512
		fixedLitLen[sym] = uint8(n)                                  //nolint:gosec // n <= 9
	}
	for d := range 30 {
		fixedDist[d] = bits.Reverse16(uint16(d)) >> 11 //nolint:gosec // d < 30
	}
	for i := range lengthBase {
		end := fixedMaxMatch + 1
		if i+1 < len(lengthBase) {
			end = int(lengthBase[i+1])
		}
		for l := int(lengthBase[i]); l < end; l++ {
			lengthSymbol[l-3] = uint8(i) //nolint:gosec // i < 29
		}
	}
}

// bitWriter appends bits LSB-first, as deflate packs them.
type bitWriter struct {
	out []byte
	acc uint64
	n   uint
}

func (w *bitWriter) write(v uint64, n uint) {
	w.acc |= v << w.n
	w.n += n
	for w.n >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

func (w *bitWriter) literal(b byte) { w.write(uint64(fixedLitCode[b]), uint(fixedLitLen[b])) }

func (w *bitWriter) match(length, dist int) {
	li := lengthSymbol[length-3]
	sym := 257 + int(li)
	w.write(uint64(fixedLitCode[sym]), uint(fixedLitLen[sym]))
	if e := lengthExtra[li]; e > 0 {
		w.write(uint64(length-int(lengthBase[li])), uint(e)) //nolint:gosec // below 2^5
	}
	di := distCode(dist)
	w.write(uint64(fixedDist[di]), 5)
	if e := distExtra[di]; e > 0 {
		w.write(uint64(dist-int(distBase[di])), uint(e)) //nolint:gosec // below 2^13
	}
}

// distCode is the distance code of dist (1..32768).
func distCode(dist int) int {
	if dist <= 4 {
		return dist - 1
	}
	// Codes come in pairs per power of two: 2k+2 and 2k+3 cover (2^k, 2^(k+1)].
	d := uint(dist - 1)
	k := bits.Len(d) - 1 // d in [2^k, 2^(k+1))
	return 2*k + int((d>>(k-1))&1)
}

// appendZlib appends to dst a zlib stream of src: header, one final fixed-Huffman block, Adler-32.
func (f *fixedFlater) appendZlib(dst, src []byte) []byte {
	// The header of compress/zlib at BestSpeed: deflate with a 32 KiB window, no dictionary, "fastest".
	w := bitWriter{out: append(dst, 0x78, 0x01)}
	w.write(0b011, 3) // BFINAL = 1, BTYPE = 01 (fixed codes)
	if int64(f.base)+int64(len(src))+1 >= 1<<30 {
		f.table = [1 << fixedHashBits]int32{}
		f.base = 0
	}
	base := f.base + 1              // every entry of earlier inputs is below base
	f.base = base + int32(len(src)) //nolint:gosec // bounded above
	lit := 0
	for i := 0; i+fixedMinMatch <= len(src); {
		cur := binary.LittleEndian.Uint32(src[i:])
		h := (cur * 0x1e35a7bd) >> (32 - fixedHashBits)
		cand := int(f.table[h] - base)
		f.table[h] = base + int32(i) //nolint:gosec // i < len(src), bounded above
		if cand < 0 || i-cand > fixedWindow || binary.LittleEndian.Uint32(src[cand:]) != cur {
			i++
			continue
		}
		l := fixedMinMatch
		for i+l < len(src) && l < fixedMaxMatch && src[cand+l] == src[i+l] {
			l++
		}
		for _, b := range src[lit:i] {
			w.literal(b)
		}
		w.match(l, i-cand)
		i += l
		lit = i
	}
	for _, b := range src[lit:] {
		w.literal(b)
	}
	w.write(uint64(fixedLitCode[256]), uint(fixedLitLen[256])) // end of block
	if w.n > 0 {
		w.write(0, 8-w.n)
	}
	return binary.BigEndian.AppendUint32(w.out, adler32.Checksum(src))
}
