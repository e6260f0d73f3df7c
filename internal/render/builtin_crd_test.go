// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package render

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/crdschema"
)

// Every document that a built-in reconciler template (the registry, builtins) renders is accepted by its
// project's real CRDs under testdata/crds, and the built-in configmap template's ConfigMap is a valid
// core ConfigMap, for ordinary targets and configs. (Names too long for a namespace
// or a label value are the concern of deployability checks, not of this test.)
func TestBuiltinTemplatesRenderDocumentsTheReconcilersAccept(t *testing.T) {
	t.Parallel()
	crds := crdschema.Default(t)
	// CEL rules are not evaluated by the checker: the built-in templates must not set the fields they
	// constrain, so that they hold trivially.
	constrained := []string{"serviceAccountName", "kubeConfig"}
	for _, r := range crds.Rules() {
		found := false
		for _, f := range constrained {
			found = found || strings.Contains(r.Path+" "+r.Rule, f)
		}
		if !found {
			t.Fatalf("a CRD has a CEL rule this test does not account for: %+v", r)
		}
	}

	// One cluster type per built-in reconciler, each with three targets: three documents of each kind it
	// writes, and three ConfigMaps.
	var docs []string
	want := map[string]int{}
	for _, b := range builtins.ordered {
		if b.reconciler == nil {
			continue
		}
		name := b.template.Metadata.Name
		docs = append(docs, clusterTypeDoc(name, map[string]string{"reconciler": name}, name, "default", "configmap"))
		for _, k := range b.reconciler.kinds {
			want[k.kind] += 3
		}
		want["ConfigMap"] += 3
	}
	docs = append(docs,
		registrationDoc("hello-world-app", "kaizen-app-team"),
		workloadDoc("hello-world-app", "", map[string]string{"type": "application"},
			targetSpec{name: "functional-test", env: "dev", labels: map[string]string{"purpose": "functional-test"}},
			targetSpec{name: "a", env: "dev"},
			targetSpec{name: "performance-test", env: "dev", labels: map[string]string{"edge": "true"}},
		),
		policyDoc("all", "", "", ""),
		configMapDoc("base", map[string]string{"platform-config": "true"}, map[string]string{
			"REGION": "West US", "REPLICAS": "3", "ENABLED": "true", "HOSTS": "- a.example.com\n- b.example.com",
			"DATABASE": "host: db\nport: 5432", "QUOTED": `say "hi"`, "EMPTY": "", "MULTILINE": "line one\nline two\n",
		}),
		configMapDoc("azure-app-config-dev", nil, map[string]string{"cluster-type.arc-flux.FLUX_ONLY": "yes", "reconciler.argocd.ARGO_ONLY": "- x"}),
	)
	res, diags := mustRender(t, "dev", Options{}, docs...)
	if len(diags) != 0 {
		t.Errorf("diagnostics: %v", diags)
	}
	kinds := map[string]int{}
	for _, path := range sortedKeys(res.Files) {
		file := path[strings.LastIndex(path, "/")+1:]
		if file != "reconciler.yaml" && file != "platform-config.yaml" {
			continue
		}
		content := res.Files[path]
		for _, f := range constrained {
			if strings.Contains(content, f+":") {
				t.Errorf("%s sets %s, which a CEL rule constrains", path, f)
			}
		}
		docs, err := crdschema.Documents(content)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for i, d := range docs {
			if err := crds.Validate(d); err != nil {
				t.Errorf("%s, document %d: %v\n%s", path, i, err, d)
			}
			kinds[strings.SplitN(strings.SplitN(d, "kind: ", 2)[1], "\n", 2)[0]]++
		}
	}
	if len(want) < 2 || !reflect.DeepEqual(kinds, want) {
		t.Errorf("validated %v documents, want %v", kinds, want)
	}
}
