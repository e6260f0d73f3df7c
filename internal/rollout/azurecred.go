// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package rollout

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/kalypso/terraform-provider-kalypso/internal/outbound"
)

// The ways to authenticate to Azure, as users of the azurerm provider have them.
const (
	// AzureDefault tries, in order, the environment, workload identity, managed identity and the Azure CLI.
	AzureDefault = "default"
	// AzureEnvironment is a service principal from AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET (or a certificate).
	AzureEnvironment = "environment"
	// AzureWorkloadIdentity is AKS workload identity: AZURE_FEDERATED_TOKEN_FILE, AZURE_CLIENT_ID, AZURE_TENANT_ID.
	AzureWorkloadIdentity = "workload_identity"
	// AzureOIDC is a federated token from the run: HCP Terraform dynamic credentials, GitHub Actions.
	AzureOIDC = "oidc"
	// AzureManagedIdentity is the machine's managed identity (a user-assigned one with ARM_CLIENT_ID/AZURE_CLIENT_ID).
	AzureManagedIdentity = "managed_identity"
	// AzureCLI is the signed-in Azure CLI user.
	AzureCLI = "azure_cli"
)

// AzureCredentials lists the accepted credential kinds.
var AzureCredentials = []string{AzureDefault, AzureEnvironment, AzureWorkloadIdentity, AzureOIDC, AzureManagedIdentity, AzureCLI}

// AzureCredential builds the credential of a kind; getenv reads the environment (os.Getenv in production).
// Nothing is contacted until a token is needed. Its requests to Entra ID or the managed identity endpoint
// are bounded by limits as the Resource Graph's are (BoundedTransport).
func AzureCredential(kind string, getenv func(string) string, limits outbound.Limits) (azcore.TokenCredential, error) {
	limits = limits.WithDefaults()
	client := azcore.ClientOptions{
		Transport: BoundedTransport(nil, "the Azure token endpoint", limits),
		Retry:     policy.RetryOptions{MaxRetries: 3, MaxRetryDelay: limits.MaxRetryAfter},
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	first := func(names ...string) string {
		for _, n := range names {
			if v := getenv(n); v != "" {
				return v
			}
		}
		return ""
	}
	switch kind {
	case "", AzureDefault:
		return azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{ClientOptions: client})
	case AzureEnvironment:
		return azidentity.NewEnvironmentCredential(&azidentity.EnvironmentCredentialOptions{ClientOptions: client})
	case AzureWorkloadIdentity:
		return azidentity.NewWorkloadIdentityCredential(&azidentity.WorkloadIdentityCredentialOptions{ClientOptions: client})
	case AzureManagedIdentity:
		opts := &azidentity.ManagedIdentityCredentialOptions{ClientOptions: client}
		if id := first("ARM_CLIENT_ID", "AZURE_CLIENT_ID"); id != "" {
			opts.ID = azidentity.ClientID(id)
		}
		return azidentity.NewManagedIdentityCredential(opts)
	case AzureCLI:
		return azidentity.NewAzureCLICredential(nil)
	case AzureOIDC:
		tenant := first("ARM_TENANT_ID", "AZURE_TENANT_ID")
		clientID := first("TFC_AZURE_RUN_CLIENT_ID", "ARM_CLIENT_ID", "AZURE_CLIENT_ID")
		token, file := first("ARM_OIDC_TOKEN", "TFC_WORKLOAD_IDENTITY_TOKEN"), first("ARM_OIDC_TOKEN_FILE_PATH", "AZURE_FEDERATED_TOKEN_FILE")
		var missing []string
		if tenant == "" {
			missing = append(missing, "ARM_TENANT_ID (or AZURE_TENANT_ID)")
		}
		if clientID == "" {
			missing = append(missing, "ARM_CLIENT_ID (or AZURE_CLIENT_ID, TFC_AZURE_RUN_CLIENT_ID)")
		}
		if token == "" && file == "" {
			missing = append(missing, "ARM_OIDC_TOKEN, TFC_WORKLOAD_IDENTITY_TOKEN, ARM_OIDC_TOKEN_FILE_PATH or AZURE_FEDERATED_TOKEN_FILE")
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("the oidc credential needs %s in the environment (HCP Terraform sets them with Azure dynamic credentials)", strings.Join(missing, ", "))
		}
		assertion := func(context.Context) (string, error) {
			if token != "" {
				return token, nil
			}
			b, err := os.ReadFile(file) //nolint:gosec // the path is the federated token file the environment names
			if err != nil {
				return "", fmt.Errorf("read the federated token: %w", err)
			}
			return strings.TrimSpace(string(b)), nil
		}
		return azidentity.NewClientAssertionCredential(tenant, clientID, assertion, &azidentity.ClientAssertionCredentialOptions{ClientOptions: client})
	}
	return nil, fmt.Errorf("unknown credential %q; use one of %s", kind, strings.Join(AzureCredentials, ", "))
}
