// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"errors"
	"fmt"
	"strings"
)

// A commit object is a header of lines ("author <name> <<email>> <time> <zone>") followed by the message.
// A newline in an identity starts a forged header line (a second parent, a false committer); '<' or '>'
// moves where git reads the email; NUL ends the object for many readers (git fsck: nulInCommit). These
// checks keep every commit the provider writes one that `git fsck --strict` accepts.

// CheckIdentity refuses an author name or email that cannot be written into a commit header as it is.
// what names the value in the error ("name" or "email").
func CheckIdentity(what, value string) error {
	switch {
	case strings.ContainsRune(value, 0):
		return fmt.Errorf("the author %s contains a NUL character", what)
	case strings.ContainsAny(value, "\n\r"):
		return fmt.Errorf("the author %s contains a line break, which would start a forged line in the commit header", what)
	case strings.ContainsAny(value, "<>"):
		return fmt.Errorf("the author %s contains '<' or '>', which delimit the email in the commit header", what)
	}
	return nil
}

// CheckMessage refuses a commit message git fsck rejects: one that contains NUL.
func CheckMessage(msg string) error {
	if strings.ContainsRune(msg, 0) {
		return errors.New("the commit message contains a NUL character, which git fsck rejects (nulInCommit)")
	}
	return nil
}

// checkCommitText applies CheckIdentity and CheckMessage to what an apply writes into its commit.
func checkCommitText(author Signature, msg string) error {
	for _, c := range []struct{ what, value string }{{"name", author.Name}, {"email", author.Email}} {
		if err := CheckIdentity(c.what, c.value); err != nil {
			return withClass(ErrInvalidInput, err)
		}
	}
	if err := CheckMessage(msg); err != nil {
		return withClass(ErrInvalidInput, err)
	}
	return nil
}
