// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package windows decides when kalypso_gitops_commit may write: a calendar of allow and deny windows,
// each a 5-field cron schedule with a duration, read in an IANA time zone (Schedule, Calendar). A deny
// window wins over an allow window; Decide says whether a time is open, which window blocks it and when
// the next one opens. The time zone database is embedded, so every machine decides alike, and the
// caller passes the time: nothing here reads a clock.
package windows
