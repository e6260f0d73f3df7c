package provider

// Temporary: keeps chosen dependencies in go.mod while the packages that use them are written.
import (
	_ "github.com/Masterminds/sprig/v3"
	_ "github.com/go-git/go-git/v5"
	_ "github.com/go-git/go-git/v5/plumbing/format/gitignore"
	_ "github.com/google/go-github/v60/github"
	_ "github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	_ "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	_ "github.com/mitchellh/hashstructure"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "gopkg.in/yaml.v2"
	_ "gopkg.in/yaml.v3"
	_ "k8s.io/apimachinery/pkg/labels"
	_ "sigs.k8s.io/yaml"
)
