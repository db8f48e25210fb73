package k8s

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"testing"

	"sigs.k8s.io/yaml"
)

// schema is the part of a CRD's OpenAPI v3 schema the checks below read:
// enough to refuse an unknown field, a value of the wrong type, a missing
// required field or a value outside an enum, a pattern or a bound.
type schema struct {
	Type                 string             `json:"type"`
	Properties           map[string]*schema `json:"properties"`
	AdditionalProperties json.RawMessage    `json:"additionalProperties"`
	Items                *schema            `json:"items"`
	Required             []string           `json:"required"`
	Enum                 []any              `json:"enum"`
	AnyOf                []*schema          `json:"anyOf"`
	Pattern              string             `json:"pattern"`
	Minimum              *float64           `json:"minimum"`
	Maximum              *float64           `json:"maximum"`
	MaxLength            *int               `json:"maxLength"`
	IntOrString          bool               `json:"x-kubernetes-int-or-string"`
	PreserveUnknown      bool               `json:"x-kubernetes-preserve-unknown-fields"`
}

// crdSchema reads the openAPIV3Schema of version from a gzipped CRD file.
func crdSchema(t *testing.T, path, version string) *schema {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Name   string `json:"name"`
				Schema struct {
					OpenAPIV3Schema *schema `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(b, &crd); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, v := range crd.Spec.Versions {
		if v.Name == version && v.Schema.OpenAPIV3Schema != nil {
			return v.Schema.OpenAPIV3Schema
		}
	}
	t.Fatalf("%s: no schema of version %s", path, version)
	return nil
}

// check returns every way v breaks s, each naming the field's path.
func (s *schema) check(path string, v any) []string {
	if s.IntOrString {
		if _, ok := v.(string); ok {
			return nil
		}
		if isInt(v) {
			return nil
		}
		return []string{fmt.Sprintf("%s: %v is neither an integer nor a string", path, v)}
	}
	if len(s.AnyOf) > 0 && !slices.ContainsFunc(s.AnyOf, func(a *schema) bool { return len(a.check(path, v)) == 0 }) {
		return []string{fmt.Sprintf("%s: %v matches none of anyOf", path, v)}
	}
	var errs []string
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		errs = append(errs, fmt.Sprintf("%s: %v is not one of %v", path, v, s.Enum))
	}
	switch s.Type {
	case "object":
		return append(errs, s.checkObject(path, v)...)
	case "array":
		a, ok := v.([]any)
		if !ok {
			return append(errs, fmt.Sprintf("%s: %v is not an array", path, v))
		}
		for i, item := range a {
			if s.Items != nil {
				errs = append(errs, s.Items.check(fmt.Sprintf("%s[%d]", path, i), item)...)
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return append(errs, fmt.Sprintf("%s: %v is not a string", path, v))
		}
		if s.Pattern != "" && !regexp.MustCompile(s.Pattern).MatchString(str) {
			errs = append(errs, fmt.Sprintf("%s: %q does not match %s", path, str, s.Pattern))
		}
		if s.MaxLength != nil && len(str) > *s.MaxLength {
			errs = append(errs, fmt.Sprintf("%s: %q is longer than %d", path, str, *s.MaxLength))
		}
	case "integer", "number":
		n, ok := v.(float64)
		if !ok || (s.Type == "integer" && !isInt(v)) {
			return append(errs, fmt.Sprintf("%s: %v is not of type %s", path, v, s.Type))
		}
		if (s.Minimum != nil && n < *s.Minimum) || (s.Maximum != nil && n > *s.Maximum) {
			errs = append(errs, fmt.Sprintf("%s: %v is out of its bounds", path, v))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			errs = append(errs, fmt.Sprintf("%s: %v is not a boolean", path, v))
		}
	}
	return errs
}

// checkObject checks an object's fields: known, or allowed by
// additionalProperties or x-kubernetes-preserve-unknown-fields; and its
// required fields present. The API server checks an object's metadata
// itself, as ObjectMeta, whatever the CRD says (the strict decode into
// the typed definitions checks it here).
func (s *schema) checkObject(path string, v any) []string {
	if path == ".metadata" {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("%s: %v is not an object", path, v)}
	}
	var errs []string
	for _, r := range s.Required {
		if _, ok := m[r]; !ok {
			errs = append(errs, fmt.Sprintf("%s: required field %s is missing", path, r))
		}
	}
	var extra *schema
	if len(s.AdditionalProperties) > 0 && string(s.AdditionalProperties) != "false" {
		extra = &schema{}
		if string(s.AdditionalProperties) != "true" {
			if err := json.Unmarshal(s.AdditionalProperties, extra); err != nil {
				return append(errs, fmt.Sprintf("%s: additionalProperties: %v", path, err))
			}
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch sub, known := s.Properties[k]; {
		case known:
			errs = append(errs, sub.check(path+"."+k, m[k])...)
		case extra != nil:
			errs = append(errs, extra.check(path+"."+k, m[k])...)
		case !s.PreserveUnknown:
			errs = append(errs, fmt.Sprintf("%s: unknown field %q", path, k))
		}
	}
	return errs
}

// isInt reports whether v, decoded from JSON, is a whole number.
func isInt(v any) bool {
	n, ok := v.(float64)
	return ok && n == math.Trunc(n)
}

// schemaErrors checks one YAML document against s.
func schemaErrors(t *testing.T, s *schema, doc []byte) []string {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	return s.check("", v)
}

// The schema check can fail: an unknown field, a value outside an enum, a
// missing required field and a wrong type are each refused.
func TestSchemaCheckRefusesBadWorkflows(t *testing.T) {
	wf := crdSchema(t, workflowCRD, "v1alpha1")
	good := []byte(`apiVersion: chaos-mesh.org/v1alpha1
kind: Workflow
metadata: {name: w}
spec:
  entry: a
  templates:
  - name: a
    templateType: PodChaos
    deadline: 10s
    podChaos: {action: pod-kill, mode: one, selector: {namespaces: [kafka]}}
`)
	if errs := schemaErrors(t, wf, good); len(errs) > 0 {
		t.Fatalf("a valid workflow refused: %v", errs)
	}
	for _, tc := range []struct{ from, to, want string }{
		{"action: pod-kill", "action: pod-kill, bogus: 1", `unknown field "bogus"`},
		{"action: pod-kill", "action: pod-explode", "is not one of"},
		{"mode: one, ", "", "required field mode is missing"},
		{"deadline: 10s", "deadline: [10s]", "is not a string"},
	} {
		bad := bytes.Replace(good, []byte(tc.from), []byte(tc.to), 1)
		errs := schemaErrors(t, wf, bad)
		if !slices.ContainsFunc(errs, func(e string) bool { return regexp.MustCompile(regexp.QuoteMeta(tc.want)).MatchString(e) }) {
			t.Errorf("%q -> %q: errors %v, want one saying %q", tc.from, tc.to, errs, tc.want)
		}
	}
}
