// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package resources

import (
	"fmt"

	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/workloadsource"
)

// DecodeWorkloads decodes Workload documents fetched for a registration (already linked to it by
// workloadsource) into model objects. An invalid document is an error naming its file and position.
func DecodeWorkloads(docs []workloadsource.Document) ([]*model.Workload, error) {
	var out []*model.Workload
	seen := map[string]string{}
	for _, d := range docs {
		where := fmt.Sprintf("file %s, document %d", d.File, d.Index)
		entry, diags := model.DecodeDocument(model.Document{Text: d.Text, Source: model.Source{Input: -1, Document: d.Index, Line: 1, File: d.File}})
		if err := diagError(diags); err != nil {
			return nil, fmt.Errorf("invalid Workload (%s): %w", where, err)
		}
		if entry == nil {
			continue
		}
		w, ok := entry.Object.(*model.Workload)
		if !ok {
			return nil, fmt.Errorf("%s is a %s, not a Workload", where, entry.Kind)
		}
		if prev, dup := seen[w.Metadata.Name]; dup {
			return nil, fmt.Errorf("Workload %q is defined twice (%s and %s); keep one", w.Metadata.Name, prev, where) //nolint:staticcheck // ST1005: "Workload" is the Kalypso kind name
		}
		seen[w.Metadata.Name] = where
		out = append(out, w)
	}
	return out, nil
}

// RegistrationManifest returns the canonical YAML of the registration followed by its Workloads: the
// `manifest` of kalypso_workload_registration.
func RegistrationManifest(reg *model.WorkloadRegistration, workloads []*model.Workload) (string, error) {
	objs := make([]model.Object, 0, len(workloads)+1)
	objs = append(objs, reg)
	for _, w := range workloads {
		objs = append(objs, w)
	}
	return Manifest(objs...)
}
