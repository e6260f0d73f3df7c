// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Git refuses to check out a path component that some file system would read as ".git" (git's
// verify_path with core.protectNTFS and core.protectHFS, on by default on Windows and macOS), and
// `git fsck --strict` (GitHub's receive.fsckObjects) refuses to receive one: hasDotgit. A tree the
// provider pushes must pass on every platform a cluster or a reviewer may check it out on, so every rule
// applies everywhere:
//   - ".git" in any letter case;
//   - NTFS: ".git" followed by dots or spaces (Windows drops them), or by an alternate data stream
//     (".git::$INDEX_ALLOCATION"), and the 8.3 short name "git~1";
//   - HFS+: ".git" with code points HFS+ ignores (zero-width joiners, direction marks, U+FEFF) anywhere in it.
//
// ".gitmodules", in the same spellings, is refused too: a GitOps tree has no submodules, and git reads the
// file's URLs and paths when it checks the tree out (fsck: gitmodulesUrl, gitmodulesPath).

// hfsIgnorable lists the code points HFS+ drops when it compares names.
func hfsIgnorable(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}

// foldHFS drops HFS+ ignorable code points and folds ASCII letters to lower case.
func foldHFS(s string) string {
	var b strings.Builder
	for _, r := range s {
		if hfsIgnorable(r) {
			continue
		}
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ntfsName reports whether component is what NTFS resolves to long (".git", ".gitmodules"): that name in
// any letter case, followed only by dots and spaces, optionally followed by ":" and a stream name; or one
// of its 8.3 short names (short + "~" + a digit, such as "git~1").
func ntfsName(component, long string, shorts ...string) bool {
	c := strings.ToLower(component)
	if i := strings.IndexByte(c, ':'); i >= 0 {
		c = c[:i]
	}
	trimmed := strings.TrimRight(c, ". ")
	if trimmed == long {
		return true
	}
	for _, short := range shorts {
		if rest, ok := strings.CutPrefix(trimmed, short+"~"); ok && len(rest) == 1 && rest[0] >= '1' && rest[0] <= '9' {
			return true
		}
	}
	return false
}

// CheckGitComponent refuses a path component that Git on some platform reads as .git or .gitmodules, or
// that is not valid UTF-8 (git and GitHub show such names mangled, and HFS+ and NTFS refuse them).
func CheckGitComponent(s string) error {
	if ordinaryASCII(s) {
		return nil
	}
	return checkGitComponent(s)
}

// ordinaryASCII reports a component that no rule of checkGitComponent can refuse, without the allocations
// of its folding (a plan checks every component of 260k files at the 86k fleet): valid UTF-8 as ASCII, and
// not starting with '.' or 'g'/'G'. Every name refused starts with one of those once the HFS+ ignorable code
// points are dropped, and those are all outside ASCII; NTFS's trimming and stream cut change only the end.
func ordinaryASCII(s string) bool {
	if s == "" || s[0] == '.' || s[0] == 'g' || s[0] == 'G' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// checkGitComponent is CheckGitComponent without its fast path.
func checkGitComponent(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("has a segment %q that is not valid UTF-8", s)
	}
	switch folded := foldHFS(s); {
	case folded == ".git" || ntfsName(s, ".git", "git"):
		return fmt.Errorf("has a segment %q that Git on Windows or macOS reads as .git (git fsck: hasDotgit); "+
			"such a tree cannot be checked out there and servers that check what they receive, such as GitHub, refuse the push", s)
	case folded == ".gitmodules" || ntfsName(s, ".gitmodules", "gitmod", "gi7eba"):
		return fmt.Errorf("has a segment %q that Git reads as .gitmodules; a GitOps tree has no submodules, and git would read "+
			"submodule URLs from it on checkout", s)
	}
	return nil
}
