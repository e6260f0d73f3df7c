// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package sanitize makes text that comes from outside the provider safe to show in a diagnostic or a
// log: a Git server's or GitHub's error body, a Git server's messages, an application team's text
// quoted in an error. Such text may echo the request's credentials (a server that answers 401 with the
// Authorization header it received) and may carry terminal control sequences (a clear screen, a fake
// "Apply complete!" drawn over the real output). Every package that receives such text passes it
// through here where it enters, so no later code path can forget.
package sanitize

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

const (
	// Redacted replaces every secret.
	Redacted = "REDACTED"
	// MaxBytes is the longest sanitized text; longer bodies are cut, saying how much was left out.
	MaxBytes = 2048
	// maxInput bounds the work on one text: what lies beyond is cut before it is scanned.
	maxInput = 1 << 20
	// minSecret is the shortest configured secret that is redacted as a substring: shorter values
	// (a test's "x") would redact ordinary words and tell a reader the secret's length and letters.
	minSecret = 6
)

// Sanitizer redacts configured secrets besides the shapes every Sanitizer redacts. The zero value
// redacts only those shapes.
type Sanitizer struct {
	secrets []string
	max     int // 0: MaxBytes
}

// New returns a Sanitizer that also redacts each of secrets (empty and very short values are ignored;
// a multi-line value such as a PEM key is redacted whole and line by line).
func New(secrets ...string) Sanitizer {
	var s Sanitizer
	add := func(v string) {
		v = strings.TrimSpace(v)
		if len(v) < minSecret {
			return
		}
		for _, have := range s.secrets {
			if have == v {
				return
			}
		}
		s.secrets = append(s.secrets, v)
	}
	for _, secret := range secrets {
		add(secret)
		add(url.QueryEscape(secret))
		add(url.PathEscape(secret))
		if strings.Contains(secret, "\n") {
			for _, line := range strings.Split(secret, "\n") {
				if len(strings.TrimSpace(line)) >= 16 && !strings.HasPrefix(strings.TrimSpace(line), "-----") {
					add(line)
				}
			}
		}
	}
	// Longest first, so that a secret containing another is redacted whole.
	for i := 1; i < len(s.secrets); i++ {
		for j := i; j > 0 && len(s.secrets[j]) > len(s.secrets[j-1]); j-- {
			s.secrets[j], s.secrets[j-1] = s.secrets[j-1], s.secrets[j]
		}
	}
	return s
}

// Limit returns a Sanitizer that cuts at n bytes instead of MaxBytes: for a diagnostic the provider
// wrote itself around quoted outside text, which may rightly be longer than one server's answer.
func (s Sanitizer) Limit(n int) Sanitizer {
	s.max = n
	return s
}

// With returns a Sanitizer that redacts s's secrets and more.
func (s Sanitizer) With(secrets ...string) Sanitizer {
	out := New(append(append([]string(nil), s.secrets...), secrets...)...)
	out.max = s.max
	return out
}

var (
	// Terminal escape sequences: CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), DCS/SOS/PM/APC
	// strings, and two-byte escapes. Their 8-bit C1 forms are escaped by escapeControls.
	escapeSeq = regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]?|[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -~]?)`)

	// A bearer or basic credential outside a header line ("Bearer abc.def"); see String for the words it leaves.
	schemeCredential = regexp.MustCompile(`(?i)\b(?:bearer|basic)[ \t]+[A-Za-z0-9._~+/-]{8,}=*`)

	shapes = []struct {
		re   *regexp.Regexp
		repl string
	}{
		// Credentials in a URL's user information: scheme://user:token@host.
		{regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@"'<>]+@`), "${1}" + Redacted + "@"},
		// Authorization headers, whatever their scheme, and bare bearer/basic/token credentials.
		{regexp.MustCompile(`(?i)\b((?:proxy-)?authorization)(["']?\s*[:=]\s*["']?)[^\r\n"',}]+`), "${1}${2}" + Redacted},
		// GitHub tokens: classic and fine-grained personal, OAuth, app installation, user-to-server, refresh.
		{regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9_]{16,}`), Redacted},
		{regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{16,}`), Redacted},
		// The basic-auth user name GitHub and the provider use for tokens, with what follows it.
		{regexp.MustCompile(`(?i)\bx-access-token:[^\s@"'<>]+`), "x-access-token:" + Redacted},
		// A JSON Web Token (an Entra ID access token, an OIDC token): header and payload are base64url JSON.
		{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*`), Redacted},
		// A PEM private key.
		{regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`), Redacted},
	}
)

// String returns text with terminal escape sequences removed, other control characters escaped
// (newline and tab are kept), secrets redacted, and at most MaxBytes long.
func (s Sanitizer) String(text string) string {
	cut := 0
	if len(text) > maxInput {
		cut = len(text) - maxInput
		text = text[:maxInput]
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	// Escapes go first, so that a sequence inside a token ("ghp_\x1b[0mabc") cannot hide it.
	text = escapeSeq.ReplaceAllString(text, "")
	for _, secret := range s.secrets {
		text = strings.ReplaceAll(text, secret, Redacted)
	}
	for _, sh := range shapes {
		text = sh.re.ReplaceAllString(text, sh.repl)
	}
	text = schemeCredential.ReplaceAllStringFunc(text, func(m string) string {
		i := strings.LastIndexAny(m, " \t")
		if !strings.ContainsAny(m[i+1:], "0123456789=+/_.~-") {
			return m // an ordinary word: "Basic realm", "bearer authentication"
		}
		return m[:i+1] + Redacted
	})
	text = escapeControls(text)
	limit := s.max
	if limit <= 0 {
		limit = MaxBytes
	}
	if len(text) > limit {
		end := limit
		for end > 0 && !utf8.RuneStart(text[end]) {
			end--
		}
		cut += len(text) - end
		text = text[:end]
	}
	if cut > 0 {
		text += fmt.Sprintf(" … (%d more bytes cut)", cut)
	}
	return text
}

// escapeControls writes every control character except newline and tab, and the Unicode characters
// that reorder or hide text (bidirectional overrides, zero-width), as a visible Go escape.
func escapeControls(text string) string {
	if !strings.ContainsFunc(text, isHidden) {
		return text
	}
	var b strings.Builder
	for _, r := range text {
		if !isHidden(r) {
			b.WriteRune(r)
			continue
		}
		switch {
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func isHidden(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0xfeff:
		return true
	}
	return false
}

// Error returns err with a sanitized message. It still matches what err matched (errors.Is and
// errors.As see the original chain), but its text, and the text of anything that wraps it with %v or
// %w, is sanitized. nil stays nil.
func (s Sanitizer) Error(err error) error {
	if err == nil {
		return nil
	}
	return &sanitized{msg: s.String(err.Error()), err: err}
}

// Error sanitizes err with no configured secrets (see Sanitizer.Error).
func Error(err error) error { return Sanitizer{}.Error(err) }

type sanitized struct {
	msg string
	err error
}

func (e *sanitized) Error() string { return e.msg }
func (e *sanitized) Unwrap() error { return e.err }
