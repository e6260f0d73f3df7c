// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package gitrepo

import "testing"

func TestRepositoryKey_Spellings(t *testing.T) {
	t.Parallel()
	same := [][]string{
		{"file:///srv/git/gitops.git", "/srv/git/gitops.git", "/srv/git/gitops.git/", "file:///srv/git/gitops.git/", "/srv/git/./gitops.git", " /srv/git/gitops.git "},
		{"https://github.com/org/fleet.git", "https://github.com/org/fleet", "https://GitHub.com/org/fleet.git/", "https://github.com:443/org/fleet.git", "HTTPS://github.com/org/fleet/"},
		{"git@github.com:org/fleet.git", "ssh://git@github.com/org/fleet.git", "ssh://git@github.com:22/org/fleet", "git@GITHUB.COM:org/fleet", "ssh://git@github.com/org/fleet.git/"},
		{"http://git.example.com/fleet.git", "http://git.example.com:80/fleet"},
	}
	for _, group := range same {
		for _, u := range group[1:] {
			if !SameRepository(group[0], u) {
				t.Errorf("%q and %q name one repository: keys %q and %q", group[0], u, RepositoryKey(group[0]), RepositoryKey(u))
			}
		}
	}
	different := [][2]string{
		{"file:///srv/git/gitops.git", "file:///srv/git/other.git"},
		{"/srv/git/gitops.git", "/srv/git/gitops"}, // two directories
		{"https://github.com/org/fleet.git", "https://github.com/org/fleet-prod.git"},
		{"https://github.com/org/fleet.git", "https://github.com:8443/org/fleet.git"},
		{"https://github.com/org/fleet.git", "http://github.com/org/fleet.git"},
		{"https://github.com/org/fleet.git", "https://github.com/Org/Fleet.git"}, // paths are case-sensitive on most hosts
		{"git@github.com:org/fleet.git", "https://github.com/org/fleet.git"},     // other credentials, other transport
		{"git@github.com:org/fleet.git", "deploy@github.com:org/fleet.git"},
		{"https://github.com/org/fleet.git", "https://gitlab.com/org/fleet.git"},
	}
	for _, d := range different {
		if SameRepository(d[0], d[1]) {
			t.Errorf("%q and %q are different repositories, both key %q", d[0], d[1], RepositoryKey(d[0]))
		}
	}
}

func TestClientRepositoryKey_Rewrites(t *testing.T) {
	t.Parallel()
	c := &Client{Rewrites: map[string]string{"https://github.com/org/": "file:///mirror/"}}
	if c.RepositoryKey("https://github.com/org/fleet.git") != RepositoryKey("/mirror/fleet.git") {
		t.Errorf("a rewritten URL names the rewrite's target: %q", c.RepositoryKey("https://github.com/org/fleet.git"))
	}
}
