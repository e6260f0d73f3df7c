// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package delivery

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/testutil/fixtures"
)

// TestRenderStore_TheNextProcessComputesTheSameChangeSet: a plan keeps its desired tree and record; a
// store on the same directory (the apply's process) loads them by the render inputs, and Compute on the
// loaded tree, without the files, gives the change set the plan computed from the files. Other inputs,
// an unreadable record, or a record whose tree is gone, are not found.
func TestRenderStore_TheNextProcessComputesTheSameChangeSet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	current := map[string]string{"drone/README.md": "drone\n", "drone/dev/deploy.yaml": "replicas: 1\n", "old/x.yaml": "x\n"}
	want := map[string]string{"drone/README.md": "drone\n", "drone/dev/deploy.yaml": "replicas: 2\n", "new/y.yaml": "y: 1\n"}
	planned, err := Compute(inspection(current, nil), Desired{Path: "clusters", Files: fixtures.Bytes(want)}, Options{}, reader(current))
	if err != nil {
		t.Fatal(err)
	}
	inputs := RenderInputs("build", []byte("key"))
	rec := RenderRecord{Inputs: inputs, Tree: planned.DesiredTree, Warnings: model.Diagnostics{{Severity: model.SeverityWarning, Summary: "Unscheduled deployment targets"}},
		Summary: &RenderSummary{Assignments: 1, ByClusterType: map[string]int{"drone": 1}, ClusterTypes: []string{"drone"}}}
	if err := NewRenderStore(dir).Save(rec, planned.Tree); err != nil {
		t.Fatal(err)
	}

	got, tree, err := NewRenderStore(dir).Load(inputs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, rec) {
		t.Errorf("record:\n got %+v\nwant %+v", *got, rec)
	}
	applied, err := Compute(inspection(current, nil), Desired{Path: "clusters", Built: tree}, Options{}, reader(current))
	if err != nil {
		t.Fatal(err)
	}
	applied.Tree, planned.Tree = nil, nil
	if !reflect.DeepEqual(applied, planned) {
		t.Errorf("change set from the stored tree:\n got %+v\nwant %+v", applied, planned)
	}

	if _, _, err := NewRenderStore(dir).Load(RenderInputs("build", []byte("other key"))); !errors.Is(err, gitrepo.ErrTreeNotStored) {
		t.Errorf("other inputs: %v, want ErrTreeNotStored", err)
	}
	if _, _, err := NewRenderStore(dir).Load("../../etc/passwd"); err == nil {
		t.Error("inputs that are not a fingerprint must not name a file")
	}
	var nilStore *RenderStore
	if _, _, err := nilStore.Load(inputs); !errors.Is(err, gitrepo.ErrTreeNotStored) {
		t.Errorf("no store: %v, want ErrTreeNotStored", err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "trees")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := NewRenderStore(dir).Load(inputs); !errors.Is(err, gitrepo.ErrTreeNotStored) {
		t.Errorf("a record whose tree is gone: %v, want ErrTreeNotStored", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "renders", inputs+".json"), []byte(strings.Repeat("{", 3)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := NewRenderStore(dir).Load(inputs); !errors.Is(err, gitrepo.ErrTreeNotStored) {
		t.Errorf("an unreadable record: %v, want ErrTreeNotStored", err)
	}
}
