// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import "github.com/kalypso/terraform-provider-kalypso/internal/parallel"

// parallelFor is parallel.For.
func parallelFor(n, workers int, fn func(i int)) { parallel.For(n, workers, fn) }
