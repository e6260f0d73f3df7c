// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ValidateBranchName applies git check-ref-format's rules to refs/heads/<name>, as `git check-ref-format
// --branch` does. A name that breaks them cannot be cloned or locks other refs (`dev.lock`).
func ValidateBranchName(name string) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("the branch name must not be empty")
	}
	if name == "@" {
		return fmt.Errorf("%q is not a valid branch name", name)
	}
	if err := refLike(name); err != nil {
		return err
	}
	if err := asciiOnly(name); err != nil {
		return err
	}
	if strings.HasPrefix(name, "-") {
		return fmt.Errorf("branch name %q starts with '-'", name)
	}
	if strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") {
		return fmt.Errorf("branch name %q starts or ends with '/'", name)
	}
	if strings.HasSuffix(name, ".") {
		return fmt.Errorf("branch name %q ends with '.'", name)
	}
	for _, bad := range []string{"..", "//", "@{"} {
		if strings.Contains(name, bad) {
			return fmt.Errorf("branch name %q contains %q", name, bad)
		}
	}
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f:
			return fmt.Errorf("branch name %q contains a control character", name)
		case r == ' ':
			return fmt.Errorf("branch name %q contains a space", name)
		case strings.ContainsRune("~^:?*[\\", r):
			return fmt.Errorf("branch name %q contains %q", name, r)
		}
	}
	for _, comp := range strings.Split(name, "/") {
		if strings.HasPrefix(comp, ".") {
			return fmt.Errorf("branch name %q has a component starting with '.'", name)
		}
		if strings.HasSuffix(comp, ".lock") {
			return fmt.Errorf("branch name %q has a component ending with \".lock\"", name)
		}
	}
	return nil
}

// refLike refuses names git would read as something other than the branch refs/heads/<name>: HEAD and
// the other pseudo-refs, a full ref name (refs/heads/main would become refs/heads/refs/heads/main), and a
// remote-tracking name (origin/dev is the local view of another repository's dev, not a branch of this one).
func refLike(name string) error {
	switch {
	case name == "HEAD" || (strings.HasSuffix(name, "_HEAD") && strings.ToUpper(name) == name):
		return fmt.Errorf("%q is a Git pseudo-ref, not a branch; name the branch itself, such as \"main\"", name)
	case strings.HasPrefix(name, "refs/"):
		return fmt.Errorf("%q is a full ref name; give the branch name without refs/heads/, such as %q", name, strings.TrimPrefix(name, "refs/heads/"))
	case strings.HasPrefix(name, "origin/") || strings.HasPrefix(name, "remotes/"):
		return fmt.Errorf("%q names a remote-tracking branch; give the branch name as the repository has it, such as %q", name, name[strings.IndexByte(name, '/')+1:])
	}
	return nil
}

// asciiOnly refuses a byte outside ASCII. Git accepts them, but a branch name is typed into CI, Flux and
// Argo CD: a zero-width space or a right-to-left mark is invisible in a plan and a review, and "dév" can
// be spelled with one code point or two (NFC, NFD), so that two names that look alike are two branches.
// The error shows the character as a code point, since it may not show at all.
func asciiOnly(name string) error {
	for i := 0; i < len(name); i++ {
		if name[i] < utf8.RuneSelf {
			continue
		}
		r, _ := utf8.DecodeRuneInString(name[i:])
		what := fmt.Sprintf("the character %U", r)
		if r == utf8.RuneError {
			what = fmt.Sprintf("the byte 0x%02x, which is not UTF-8,", name[i])
		}
		return fmt.Errorf("branch name %+q contains %s at byte %d: only ASCII letters, digits and punctuation are allowed "+
			"(invisible and look-alike characters would make two branches that read alike)", name, what, i)
	}
	return nil
}
