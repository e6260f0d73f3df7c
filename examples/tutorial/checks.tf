# The environment_render function cannot emit warnings, so it returns them in `warnings`. These checks
# turn them into plan warnings: at stage 1, hello-world-app's Dev targets match no policy yet, and the
# plan says so. A failed check warns; it never blocks the apply.
check "dev_render" {
  assert {
    condition     = length(local.dev.warnings) == 0
    error_message = join("\n", local.dev.warnings)
  }
}

# Stage exists from stage 3 on; before that, its targets have nowhere to go by design.
check "stage_render" {
  assert {
    condition     = !local.stage_enabled || length(local.stage.warnings) == 0
    error_message = join("\n", local.stage.warnings)
  }
}
