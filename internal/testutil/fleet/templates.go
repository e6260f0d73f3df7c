// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package fleet

import (
	_ "embed"
)

// The templates are the tutorial fixture's files, byte for byte, so a
// generated fleet renders the same shapes as the reference case. The config
// template has no final newline, which is why rendered platform-config.yaml
// files end without one.
var (
	//go:embed templates/arc-flux.yaml
	arcFluxTemplate string
	//go:embed templates/default.yaml
	namespaceTemplate string
	//go:embed templates/configmap.yaml
	configMapTemplate string
	//go:embed templates/argocd.yaml
	argoCDTemplate string
)

var fixtureTemplates = []struct{ name, yaml string }{
	{"arc-flux", arcFluxTemplate},
	{"default", namespaceTemplate},
	{"configmap", configMapTemplate},
}

// tutorialTemplates are the tutorial's four templates (ShapeTutorial).
var tutorialTemplates = []struct{ name, yaml string }{
	{"arc-flux", arcFluxTemplate},
	{"argocd", argoCDTemplate},
	{"default", namespaceTemplate},
	{"configmap", configMapTemplate},
}
