// Copyright (c) The terraform-provider-kalypso authors.
// SPDX-License-Identifier: MPL-2.0

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// slowRenderConfig calls provider::kalypso::environment_render on a template that loops 9e9 times, with
// both the template and the render limit raised to 10 minutes: uninterrupted, the plan runs for minutes.
const slowRenderConfig = `terraform {
  required_providers {
    kalypso = { source = "kalypso/kalypso" }
  }
}
locals {
  m = <<-EOT
apiVersion: scheduler.kalypso.io/v1alpha1
kind: ClusterType
metadata:
  name: large
spec:
  reconciler: slow
  namespaceService: default
---
apiVersion: scheduler.kalypso.io/v1alpha1
kind: Template
metadata:
  name: slow
spec:
  type: reconciler
  manifests:
    - '{{ range 9000000000 }}{{ end }}'
---
apiVersion: scheduler.kalypso.io/v1alpha1
kind: Workload
metadata:
  name: app
spec:
  deploymentTargets:
    - name: web
      environment: dev
      manifests:
        repo: https://example.com/app
        branch: main
        path: ./web
---
apiVersion: scheduler.kalypso.io/v1alpha1
kind: WorkloadRegistration
metadata:
  name: app
spec:
  workspace: team
  workload:
    repo: https://example.com/app
    branch: main
    path: .
---
apiVersion: scheduler.kalypso.io/v1alpha1
kind: SchedulingPolicy
metadata:
  name: all
spec:
  deploymentTargetSelector: {}
  clusterTypeSelector: {}
EOT
}
output "hash" {
  value = provider::kalypso::environment_render("dev", [local.m], { template_timeout = "10m", render_timeout = "10m" }).content_hash
}
`

// TestFunctionRenderStopsOnCtrlC runs the real provider binary under the real terraform binary, in a
// process group of its own as a terminal runs it, and sends SIGINT to the group (what Ctrl-C does) once
// the function render runs. Terraform never sends StopProvider to the instance that runs functions; the
// provider process's own SIGINT stops the render, and the plan ends with "Render canceled" long before
// the render's 10 minutes. The bound is generous (2 minutes); the measured time is logged.
func TestFunctionRenderStopsOnCtrlC(t *testing.T) {
	t.Parallel()
	tfBin, env := providerUnderTerraform(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(slowRenderConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "trace.log")
	cmd := exec.Command(tfBin, "plan", "-input=false", "-no-color")
	cmd.Dir = dir
	cmd.Env = append(env, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "TF_LOG=trace", "TF_LOG_PATH="+logPath)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	defer func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) }() // only this test's process group
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	// Wait until the provider runs the function (its trace line), or terraform exits early.
	for started := false; !started; {
		select {
		case err := <-exited:
			t.Fatalf("terraform exited (%v) before the render started:\n%s", err, out.String())
		case <-time.After(100 * time.Millisecond):
			b, _ := os.ReadFile(logPath)
			started = bytes.Contains(b, []byte("Calling provider defined Function Run"))
		}
	}
	time.Sleep(time.Second) // the render is inside the template loop now
	start := time.Now()
	if err := syscall.Kill(-pgid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		stopped := time.Since(start)
		t.Logf("terraform plan ended %s after SIGINT", stopped.Round(time.Millisecond))
		if err == nil {
			t.Fatalf("the interrupted plan exited 0:\n%s", out.String())
		}
		if !strings.Contains(out.String(), "Render canceled") || !strings.Contains(out.String(), "was canceled (Terraform was interrupted)") {
			t.Fatalf("the plan did not end with the render canceled:\n%s", out.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("terraform plan still runs 2 minutes after SIGINT: the function render ignored it:\n%s", out.String())
	}
}
