# The platform config of every assignment, as a ConfigMap in the assignment's namespace.
resource "kalypso_template" "configmap" {
  name = "configmap"
  type = "config"
  manifests = [<<-EOT
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: platform-config
      namespace: {{ .Namespace}}
    data:
    {{ toYaml .ConfigData | indent 2}}
  EOT
  ]
}

# A shell script instead of YAML: the file is written as platform-config.sh.
resource "kalypso_template" "env_sh" {
  name         = "env-sh"
  type         = "config"
  content_type = "sh"
  manifests    = ["export REGION=\"{{ .ConfigData.REGION }}\"\n"]
}
