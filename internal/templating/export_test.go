// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package templating

// Execute renders one manifest with the default limits; the render always passes its limits.
func (e *Engine) Execute(text string, data *Data) (string, error) {
	return e.ExecuteLimited(text, data, Limits{})
}

// ExecuteAll renders every manifest of a template with the default limits.
func (e *Engine) ExecuteAll(manifests []string, data *Data) ([]string, error) {
	return e.ExecuteAllLimited(manifests, data, Limits{})
}
