// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

// Package validators holds the plan-time attribute validators shared by the kalypso_* resources:
// Kubernetes names and labels (apimachinery rules), label selector requirements and JSON Schema text.
package validators

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kalypso/terraform-provider-kalypso/internal/delivery"
	"github.com/kalypso/terraform-provider-kalypso/internal/gitrepo"
	"github.com/kalypso/terraform-provider-kalypso/internal/platformconfig"
)

// AddError reports an attribute error where Terraform can show it. Terraform finds the source of a
// diagnostic by looking the path's last attribute name up among the resource's top-level arguments
// (it descends only into blocks, and every attribute here is an argument), so an error at
// `workload.deployment_targets[1].name` would be shown on the resource's own `name` line, and one at
// `cluster_type_selector.match_expressions[0].operator` on the resource's first line. A nested path is
// therefore reported on its top-level argument, whose expression contains the value at fault, and the
// detail names the full path. Top-level paths, with a map key or list index, are kept: Terraform
// shows exactly that element.
func AddError(diags *diag.Diagnostics, p path.Path, summary, detail string) {
	steps := p.Steps()
	nested := 0
	for _, s := range steps {
		if _, ok := s.(path.PathStepAttributeName); ok {
			nested++
		}
	}
	if nested <= 1 {
		diags.AddAttributeError(p, summary, detail)
		return
	}
	top, ok := steps[0].(path.PathStepAttributeName)
	if !ok {
		diags.AddAttributeError(p, summary, detail)
		return
	}
	diags.AddAttributeError(path.Root(string(top)), summary, fmt.Sprintf("%s: %s", p, detail))
}

// Selector operators, as Kubernetes spells them.
const (
	OperatorIn           = "In"
	OperatorNotIn        = "NotIn"
	OperatorExists       = "Exists"
	OperatorDoesNotExist = "DoesNotExist"
)

// Operators lists the label selector operators.
var Operators = []string{OperatorIn, OperatorNotIn, OperatorExists, OperatorDoesNotExist}

// DNSSubdomainName checks a Kubernetes object name: a DNS-1123 subdomain.
func DNSSubdomainName() validator.String { return dnsName{} }

type dnsName struct{}

func (dnsName) Description(context.Context) string {
	return "must be a DNS-1123 subdomain: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters"
}
func (v dnsName) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (dnsName) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	value := req.ConfigValue.ValueString()
	if msgs := validation.IsDNS1123Subdomain(value); len(msgs) > 0 {
		AddError(&resp.Diagnostics, req.Path, "Invalid Kubernetes name",
			fmt.Sprintf("%q is not a valid name: %s. Use lower-case letters, digits, '-' and '.', for example \"my-cluster-type\".", value, strings.Join(msgs, "; ")))
	}
}

// LabelMap checks every key of a label map with Kubernetes' qualified-name rule and every value with
// the label-value rule. Each problem is reported at the map key's path.
func LabelMap() validator.Map { return labelMap{} }

type labelMap struct{}

func (labelMap) Description(context.Context) string {
	return "keys must be Kubernetes label keys ([prefix/]name) and values Kubernetes label values (at most 63 characters, alphanumeric, '-', '_' or '.')"
}
func (v labelMap) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (labelMap) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	elems := req.ConfigValue.Elements()
	for _, k := range slices.Sorted(maps.Keys(elems)) {
		p := req.Path.AtMapKey(k)
		for _, msg := range validation.IsQualifiedName(k) {
			AddError(&resp.Diagnostics, p, "Invalid label key", fmt.Sprintf("label key %q: %s", k, msg))
		}
		s, ok := elems[k].(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		for _, msg := range validation.IsValidLabelValue(s.ValueString()) {
			AddError(&resp.Diagnostics, p, "Invalid label value", fmt.Sprintf("value %q of label %q: %s", s.ValueString(), k, msg))
		}
	}
}

// LabelKey checks one Kubernetes label key, for example a selector requirement's key.
func LabelKey() validator.String { return labelKey{} }

type labelKey struct{}

func (labelKey) Description(context.Context) string {
	return "must be a Kubernetes label key ([prefix/]name)"
}
func (v labelKey) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (labelKey) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for _, msg := range validation.IsQualifiedName(req.ConfigValue.ValueString()) {
		AddError(&resp.Diagnostics, req.Path, "Invalid label key", fmt.Sprintf("label key %q: %s", req.ConfigValue.ValueString(), msg))
	}
}

// LabelValue checks one Kubernetes label value, for example an element of a selector requirement's values.
func LabelValue() validator.String { return labelValue{} }

type labelValue struct{}

func (labelValue) Description(context.Context) string {
	return "must be a Kubernetes label value (at most 63 characters, alphanumeric, '-', '_' or '.')"
}
func (v labelValue) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (labelValue) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for _, msg := range validation.IsValidLabelValue(req.ConfigValue.ValueString()) {
		AddError(&resp.Diagnostics, req.Path, "Invalid label value", fmt.Sprintf("label value %q: %s", req.ConfigValue.ValueString(), msg))
	}
}

// SelectorRequirement checks a match expression object with attributes `key`, `operator` and `values`:
// In and NotIn need at least one value, Exists and DoesNotExist must have none. The diagnostic is at
// the `values` attribute.
func SelectorRequirement() validator.Object { return selectorRequirement{} }

type selectorRequirement struct{}

func (selectorRequirement) Description(context.Context) string {
	return "operators In and NotIn need values; Exists and DoesNotExist take no values"
}
func (v selectorRequirement) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (selectorRequirement) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	attrs := req.ConfigValue.Attributes()
	op, ok := attrs["operator"].(types.String)
	if !ok || op.IsNull() || op.IsUnknown() {
		return
	}
	key := ""
	if k, ok := attrs["key"].(types.String); ok {
		key = k.ValueString()
	}
	n, known := countElements(attrs["values"])
	if !known {
		return
	}
	p := req.Path.AtName("values")
	switch op.ValueString() {
	case OperatorIn, OperatorNotIn:
		if n == 0 {
			AddError(&resp.Diagnostics, p, "Selector operator needs values",
				fmt.Sprintf("the requirement on key %q uses operator %s, which needs at least one value; set values = [...] or use Exists/DoesNotExist.", key, op.ValueString()))
		}
	case OperatorExists, OperatorDoesNotExist:
		if n > 0 {
			AddError(&resp.Diagnostics, p, "Selector operator takes no values",
				fmt.Sprintf("the requirement on key %q uses operator %s, which must not have values; remove values or use In/NotIn.", key, op.ValueString()))
		}
	}
}

func countElements(v attr.Value) (int, bool) {
	switch l := v.(type) {
	case nil:
		return 0, true
	case types.List:
		if l.IsUnknown() {
			return 0, false
		}
		return len(l.Elements()), true
	case types.Set:
		if l.IsUnknown() {
			return 0, false
		}
		return len(l.Elements()), true
	}
	return 0, true
}

// JSONSchema checks that a string compiles as a draft-07 JSON Schema (JSON, or YAML for convenience).
func JSONSchema() validator.String { return jsonSchema{} }

type jsonSchema struct{}

func (jsonSchema) Description(context.Context) string {
	return "must be a JSON Schema (draft-07) that compiles"
}
func (v jsonSchema) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (jsonSchema) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := platformconfig.CheckSchemaText(req.ConfigValue.ValueString()); err != nil {
		AddError(&resp.Diagnostics, req.Path, "Invalid JSON Schema",
			fmt.Sprintf("the schema does not compile as JSON Schema draft-07: %v. Fix the schema text, for example with jsonencode({type = \"object\", ...}).", err))
	}
}

// NoNullElements reports every null element of a map, list or set at the element's own path, at plan
// time. Terraform accepts `labels = { a = null }` or `values = [null]`, and the provider's conversion
// would otherwise fail with a "Value Conversion Error" that blames the provider.
func NoNullElements() noNullElements { return noNullElements{} }

type noNullElements struct{}

var (
	_ validator.Map  = noNullElements{}
	_ validator.List = noNullElements{}
	_ validator.Set  = noNullElements{}
)

func (noNullElements) Description(context.Context) string {
	return "elements must not be null"
}
func (v noNullElements) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

const nullElementSummary = "Null element"

func (noNullElements) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	elems := req.ConfigValue.Elements()
	for _, k := range slices.Sorted(maps.Keys(elems)) {
		if elems[k].IsNull() {
			AddError(&resp.Diagnostics, req.Path.AtMapKey(k), nullElementSummary,
				fmt.Sprintf("%s[%q] is null. Give the key a value (\"\" for an empty string) or remove it; a conditional entry can be written with a for expression that filters out nulls.", req.Path, k))
		}
	}
}

func (noNullElements) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for i, e := range req.ConfigValue.Elements() {
		if e.IsNull() {
			AddError(&resp.Diagnostics, req.Path.AtListIndex(i), nullElementSummary, NullListElement(req.Path.String(), i))
		}
	}
}

// NullListElement is the detail of a null element i of the list at path; provider functions, which have no
// attribute validators, report it too.
func NullListElement(path string, i int) string {
	return fmt.Sprintf("%s[%d] is null. Remove the element or give it a value; compact() removes nulls and empty strings from a list.", path, i)
}

// NullElementSummary is the summary of a null element.
const NullElementSummary = nullElementSummary

func (noNullElements) ValidateSet(_ context.Context, req validator.SetRequest, resp *validator.SetResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for _, e := range req.ConfigValue.Elements() {
		if e.IsNull() {
			AddError(&resp.Diagnostics, req.Path.AtSetValue(e), nullElementSummary,
				fmt.Sprintf("%s holds a null element. Remove it or give it a value.", req.Path))
		}
	}
}

// ConfigMapKeys checks every key of a ConfigMap's data with Kubernetes' rule (IsConfigMapKey), at the key's path.
func ConfigMapKeys() validator.Map { return configMapKeys{} }

type configMapKeys struct{}

func (configMapKeys) Description(context.Context) string {
	return "keys must be valid ConfigMap keys: letters, digits, '-', '_' and '.', at most 253 characters, not '.' or '..'"
}
func (v configMapKeys) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (configMapKeys) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(req.ConfigValue.Elements())) {
		if msgs := validation.IsConfigMapKey(k); len(msgs) > 0 {
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(k), "Invalid ConfigMap key",
				fmt.Sprintf("%q cannot be a ConfigMap data key, so Kubernetes would refuse the ConfigMap: %s. Use letters, digits, '-', '_' and '.', for example \"log.level\".", k, strings.Join(msgs, "; ")))
		}
	}
}

// PEMCertificates checks that a string holds one or more PEM CERTIFICATE blocks that parse, and nothing
// else but whitespace between them.
func PEMCertificates() validator.String { return pemCertificates{} }

type pemCertificates struct{}

func (pemCertificates) Description(context.Context) string {
	return "must be one or more PEM-encoded X.509 certificates"
}
func (v pemCertificates) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (pemCertificates) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := CheckPEMCertificates(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid PEM certificates", err.Error())
	}
}

// CheckPEMCertificates is the check of PEMCertificates, for callers outside a schema.
func CheckPEMCertificates(text string) error {
	rest := []byte(text)
	n := 0
	for {
		block, r := pem.Decode(rest)
		if block == nil {
			break
		}
		n++
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("block %d is a PEM %q block, not a CERTIFICATE; give only CA certificates (never a private key)", n, block.Type)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Errorf("certificate %d does not parse: %v", n, err)
		}
		rest = r
	}
	if n == 0 {
		return fmt.Errorf("no PEM certificate found; give one or more blocks that start with -----BEGIN CERTIFICATE-----")
	}
	if s := strings.TrimSpace(string(rest)); s != "" {
		return fmt.Errorf("text after certificate %d is not a PEM block; remove it", n)
	}
	return nil
}

// Located wraps a string validator (for example one of terraform-plugin-framework-validators) so that
// its errors on a nested attribute are reported where Terraform can show them; see AddError.
func Located(v validator.String) validator.String { return located{v} }

type located struct{ inner validator.String }

func (l located) Description(ctx context.Context) string { return l.inner.Description(ctx) }
func (l located) MarkdownDescription(ctx context.Context) string {
	return l.inner.MarkdownDescription(ctx)
}

func (l located) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	var inner validator.StringResponse
	l.inner.ValidateString(ctx, req, &inner)
	for _, d := range inner.Diagnostics {
		withPath, ok := d.(diag.DiagnosticWithPath)
		if !ok || d.Severity() != diag.SeverityError {
			resp.Diagnostics.Append(d)
			continue
		}
		AddError(&resp.Diagnostics, withPath.Path(), d.Summary(), d.Detail())
	}
}

// CommitIdentity checks an author name or email (what) for what a commit header cannot hold: a line
// break, '<', '>' or NUL (gitrepo.CheckIdentity).
func CommitIdentity(what string) validator.String { return commitText{what: what} }

// CommitMessage checks a commit message for NUL (gitrepo.CheckMessage).
func CommitMessage() validator.String { return commitText{} }

type commitText struct{ what string }

func (v commitText) Description(context.Context) string {
	if v.what == "" {
		return "must not contain NUL"
	}
	return "must not contain a line break, '<', '>' or NUL"
}
func (v commitText) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v commitText) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	value := req.ConfigValue.ValueString()
	if v.what == "" {
		if err := gitrepo.CheckMessage(value); err != nil {
			AddError(&resp.Diagnostics, req.Path, "Invalid commit message", err.Error()+". Remove the NUL character.")
		}
		return
	}
	if err := gitrepo.CheckIdentity(v.what, value); err != nil {
		AddError(&resp.Diagnostics, req.Path, "Invalid commit author",
			fmt.Sprintf("%s (%q). A commit written with it would carry a malformed or forged header; remove the character.", err, value))
	}
}

// BranchName checks a Git branch name as kalypso_gitops_commit does (delivery.ValidateBranchName): git
// check-ref-format's rules, no ref-like name, and ASCII only.
func BranchName() validator.String { return branchName{} }

type branchName struct{}

func (branchName) Description(context.Context) string {
	return "must be a branch name git accepts (git check-ref-format --branch), in ASCII"
}
func (v branchName) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (branchName) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := delivery.ValidateBranchName(req.ConfigValue.ValueString()); err != nil {
		AddError(&resp.Diagnostics, req.Path, "Invalid branch", err.Error()+`. Use a name git accepts, such as "dev" or "envs/dev".`)
	}
}

// CommitSHA accepts a Git commit SHA-1, full or abbreviated to at least 7 hex digits: the form
// gitrepo.ValidateCommit accepts, checked before any repository is contacted.
func CommitSHA() validator.String {
	return stringvalidator.RegexMatches(commitSHA, "must be a Git commit SHA: 7 to 40 hexadecimal digits")
}

var commitSHA = regexp.MustCompile(`^[0-9a-fA-F]{7,40}$`)

// WholeNumberString checks a string attribute for a whole number between minimum and maximum, written in
// decimal ("1000"); HCL turns a number in the configuration (max_changes = 1000) into that string. Such
// attributes are strings because a number in the state makes Terraform's refresh-only plan report drift
// that is not there (hashicorp/terraform#36403).
func WholeNumberString(minimum, maximum int64) validator.String {
	return wholeNumberString{minimum, maximum}
}

type wholeNumberString struct{ minimum, maximum int64 }

func (v wholeNumberString) Description(context.Context) string {
	return fmt.Sprintf("must be a whole number between %d and %d", v.minimum, v.maximum)
}
func (v wholeNumberString) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v wholeNumberString) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	if n, err := strconv.ParseInt(s, 10, 64); err != nil || n < v.minimum || n > v.maximum {
		AddError(&resp.Diagnostics, req.Path, "Invalid number", fmt.Sprintf("%s is %q; it %s.", req.Path, s, v.Description(context.Background())))
	}
}

// Duration accepts a positive Go duration ("90s", "15m", "1h30m").
func Duration() validator.String { return duration{} }

type duration struct{}

func (duration) Description(context.Context) string {
	return `must be a positive Go duration, such as "90s", "15m" or "1h30m"`
}
func (v duration) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v duration) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if d, err := time.ParseDuration(req.ConfigValue.ValueString()); err != nil || d <= 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration", fmt.Sprintf("%q %s.", req.ConfigValue.ValueString(), v.Description(ctx)))
	}
}
