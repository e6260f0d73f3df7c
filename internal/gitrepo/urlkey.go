// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

// defaultPorts are the ports a URL may leave out.
var defaultPorts = map[string]int{"https": 443, "http": 80, "ssh": 22, "git": 9418}

// RepositoryKey is one spelling of the repository a URL names, so that two spellings of one repository
// compare equal: `file://` and a plain path, a trailing `/`, a trailing `.git` (remote URLs; a local
// directory's name is what it is), the host's case, a default port, and scp-style `user@host:path` and
// `ssh://user@host/path`. Rewrites are not applied (see Client.RepositoryKey). A URL that cannot be
// parsed is its own key.
func RepositoryKey(u string) string {
	u = strings.TrimSpace(u)
	ep, err := transport.NewEndpoint(u)
	if err != nil {
		return u
	}
	proto := strings.ToLower(ep.Protocol)
	if proto == "file" {
		dir := ep.Path
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		return "file://" + filepath.ToSlash(filepath.Clean(dir))
	}
	host := strings.ToLower(ep.Host)
	if ep.Port != 0 && ep.Port != defaultPorts[proto] {
		host += ":" + strconv.Itoa(ep.Port)
	}
	if ep.User != "" {
		host = ep.User + "@" + host
	}
	p := strings.Trim(ep.Path, "/")
	p = strings.TrimSuffix(strings.TrimSuffix(p, "/"), ".git")
	return proto + "://" + host + "/" + strings.Trim(p, "/")
}

// RepositoryKey is the key of the repository u names once the client's rewrites (git_url_rewrites) apply.
func (c *Client) RepositoryKey(u string) string {
	return RepositoryKey(c.RewriteURL(strings.TrimSpace(u)))
}
