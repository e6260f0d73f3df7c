// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package workloadsource fetches the Workload a WorkloadRegistration points to and links it to that
// registration. It is shared by the kalypso_workload_registration resource and the kalypso_control_plane
// data source, and has no Terraform dependency.
package workloadsource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/model"
	"github.com/kalypso/terraform-provider-kalypso/internal/sanitize"
)

// ErrNoWorkload is returned (wrapped) when the registration's path holds no Workload document.
var ErrNoWorkload = errors.New("no Workload document found")

// ErrInvalidDocument is returned (wrapped) when a YAML document below the path cannot be parsed.
var ErrInvalidDocument = errors.New("invalid YAML document")

// Document is one Workload document fetched for a registration.
type Document struct {
	// File is the file path relative to the registration's path.
	File string
	// Index is the 0-based position of the document in its file's `---` stream.
	Index int
	// Line is the 1-based line where the document starts in its file.
	Line int
	// Name is the Workload's metadata.name.
	Name string
	// Text is the document, linked to the registration (see Link).
	Text string
}

// FetchDocuments reads every *.yaml and *.yml file below the registration's spec.workload path at the
// head of its branch, keeps the Workload documents (in file order, then document order) with their file
// and position, and links each one to the registration. It returns the commit that was read. Every Git
// read goes through client, so its URL rewrites and credentials apply.
//
// Its errors quote an application team's repository (file names, YAML, the Git host's answer), so their
// text is sanitized here, where it enters (see internal/sanitize).
func FetchDocuments(ctx context.Context, client *gitrepo.Client, reg *model.WorkloadRegistration) (string, []Document, error) {
	commit, docs, err := fetchDocuments(ctx, client, reg)
	return commit, docs, sanitize.Error(err)
}

func fetchDocuments(ctx context.Context, client *gitrepo.Client, reg *model.WorkloadRegistration) (string, []Document, error) {
	if reg == nil {
		return "", nil, errors.New("workloadsource: nil WorkloadRegistration")
	}
	if client == nil {
		client = &gitrepo.Client{}
	}
	src := reg.Spec.Workload
	name := reg.Metadata.Name
	if strings.TrimSpace(src.Repo) == "" {
		return "", nil, fmt.Errorf("WorkloadRegistration %q: spec.workload.repo is empty; set the repository that holds the Workload", name)
	}
	branch := src.Branch
	if branch == "" {
		return "", nil, fmt.Errorf("WorkloadRegistration %q: spec.workload.branch is empty; set the branch that holds the Workload", name)
	}
	commit, files, err := client.ReadTree(ctx, src.Repo, branch, src.Path)
	if err != nil {
		return commit, nil, fmt.Errorf("WorkloadRegistration %q: fetching its Workload: %w", name, err)
	}
	docs, err := extractWorkloads(files, name)
	if err != nil {
		return commit, nil, fmt.Errorf("WorkloadRegistration %q (repository %q, branch %q, path %q, commit %s): %w", name, src.Repo, branch, displayPath(src.Path), commit, err)
	}
	if len(docs) == 0 {
		return commit, nil, fmt.Errorf("WorkloadRegistration %q: %w below path %q of repository %q, branch %q (commit %s); add a kind: Workload document there or fix spec.workload",
			name, ErrNoWorkload, displayPath(src.Path), src.Repo, branch, commit)
	}
	return commit, docs, nil
}

func extractWorkloads(files map[string][]byte, registration string) ([]Document, error) {
	paths := make([]string, 0, len(files))
	for p := range files {
		if IsYAMLFile(p) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	var out []Document
	for _, p := range paths {
		docs, diags := model.SplitDocuments(0, string(files[p]))
		if err := diags.Errors(); len(err) > 0 {
			d := err[0]
			return nil, fmt.Errorf("%w: file %s, document %d (line %d): %s: %s", ErrInvalidDocument, p, d.Source.Document, d.Source.Line, d.Summary, d.Detail)
		}
		for _, doc := range docs {
			apiVersion, kind, name, err := Header(doc.Text)
			if err != nil {
				return nil, fmt.Errorf("%w: file %s, document %d (line %d): %v", ErrInvalidDocument, p, doc.Source.Document, doc.Source.Line, err)
			}
			if kind != model.KindWorkload || apiVersion != model.APIVersion {
				continue
			}
			text, err := Link(doc.Text, registration)
			if err != nil {
				return nil, fmt.Errorf("%w: file %s, document %d (line %d): %v", ErrInvalidDocument, p, doc.Source.Document, doc.Source.Line, err)
			}
			out = append(out, Document{File: p, Index: doc.Source.Document, Line: doc.Source.Line, Name: name, Text: text})
		}
	}
	return out, nil
}

// IsYAMLFile reports whether a path names a YAML file.
func IsYAMLFile(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	return ext == ".yaml" || ext == ".yml"
}

// Header decodes a document's apiVersion, kind and metadata.name. A document that is valid YAML but not a
// mapping returns empty strings and no error.
func Header(text string) (apiVersion, kind, name string, err error) {
	var h struct {
		APIVersion any `json:"apiVersion"`
		Kind       any `json:"kind"`
		Metadata   any `json:"metadata"`
	}
	js, err := sigsyaml.YAMLToJSON([]byte(text))
	if err != nil {
		return "", "", "", err
	}
	if len(js) == 0 || js[0] != '{' {
		return "", "", "", nil
	}
	if err := sigsyaml.Unmarshal([]byte(text), &h); err != nil {
		return "", "", "", err
	}
	apiVersion, _ = h.APIVersion.(string)
	kind, _ = h.Kind.(string)
	if m, ok := h.Metadata.(map[string]any); ok {
		name, _ = m["name"].(string)
	}
	return apiVersion, kind, name, nil
}

// Link makes a Workload document point at the registration: when its metadata.name differs from the
// registration's name, or it carries a different scheduler.kalypso.io/registration annotation, the
// annotation is set to the registration's name. Otherwise the text is returned verbatim.
func Link(text, registration string) (string, error) {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(text), &root); err != nil {
		return "", err
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return "", errors.New("a Workload must be a YAML mapping")
	}
	obj := root.Content[0]
	meta := mappingValue(obj, "metadata")
	if meta == nil || meta.Kind != yaml.MappingNode {
		return "", errors.New("a Workload needs a metadata mapping with a name")
	}
	name := ""
	if n := mappingValue(meta, "name"); n != nil {
		name = n.Value
	}
	ann := mappingValue(meta, "annotations")
	current := ""
	hasAnnotation := false
	if ann != nil && ann.Kind == yaml.MappingNode {
		if v := mappingValue(ann, model.RegistrationAnnotation); v != nil {
			current, hasAnnotation = v.Value, true
		}
	}
	if hasAnnotation && current == registration {
		return text, nil
	}
	if !hasAnnotation && name == registration {
		return text, nil
	}
	if ann == nil || ann.Kind != yaml.MappingNode {
		ann = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		setMappingValue(meta, "annotations", ann)
	}
	setMappingValue(ann, model.RegistrationAnnotation, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: registration})
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return buf.String(), nil
}

func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func setMappingValue(m *yaml.Node, key string, value *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = value
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, value)
}

func displayPath(p string) string {
	if p == "" {
		return "."
	}
	return p
}
