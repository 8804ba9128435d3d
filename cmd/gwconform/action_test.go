package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance"
	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/refgateway"
	"github.com/gwconform/gwconform/fixtures"
)

// actionInputs says where each input of action.yml goes: a flag of
// gwconform run, a variable the CLI reads, or the action itself.
var actionInputs = map[string]struct{ flag, variable, action string }{
	"base-url":         {flag: "base-url"},
	"shard":            {flag: "shard"},
	"tiers":            {flag: "tier"},
	"features":         {flag: "feature"},
	"strict":           {flag: "strict"},
	"ca-cert":          {flag: "ca-cert"},
	"out":              {flag: "out"},
	"waivers":          {flag: "waivers"},
	"confirm-failures": {flag: "rerun-failed"},
	"text-key":         {variable: conformance.KeyVariables["text"]},
	"messages-key":     {variable: conformance.KeyVariables["messages"]},
	"image-key":        {variable: conformance.KeyVariables["image"]},
	"alt-key":          {variable: conformance.KeyVariables["alt"]},
	"public-image-url": {variable: "GWCONFORM_PUBLIC_IMAGE_URL"},
	"headers":          {variable: conformance.HeaderVariables[""]},
	"text-headers":     {variable: conformance.HeaderVariables["text"]},
	"messages-headers": {variable: conformance.HeaderVariables["messages"]},
	"image-headers":    {variable: conformance.HeaderVariables["image"]},
	"alt-headers":      {variable: conformance.HeaderVariables["alt"]},
	"self-test":        {action: "runs the in-process reference gateway instead of base-url"},
	"previous-report":  {action: "gwconform diff against it"},
	"artifact-name":    {action: "the upload step"},
}

// TestActionInputsMapToFlags: every input of action.yml reaches gwconform
// by a flag that exists or a variable it reads, through the run step.
func TestActionInputsMapToFlags(t *testing.T) {
	raw, err := os.ReadFile("../../action.yml")
	require.NoError(t, err)
	var action struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Steps []struct {
				ID  string            `yaml:"id"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &action))
	script, err := os.ReadFile("../../.github/action/run.sh")
	require.NoError(t, err)
	var runEnv map[string]string
	for _, s := range action.Runs.Steps {
		if s.ID == "run" {
			runEnv = s.Env
		}
	}
	require.NotNil(t, runEnv, "action.yml has a step with id run")
	_, _, help := gw(t, "run", "-h")
	assert.Len(t, action.Inputs, len(actionInputs), "every input is described in actionInputs")
	for name := range action.Inputs {
		t.Run(name, func(t *testing.T) {
			where, ok := actionInputs[name]
			require.True(t, ok, "input %s is not mapped", name)
			env := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
			if where.action == "" || name == "self-test" || name == "previous-report" {
				assert.Equal(t, "${{ inputs."+name+" }}", runEnv[env], "the run step passes %s as %s", name, env)
				assert.Contains(t, string(script), env, "run.sh reads %s", env)
			}
			switch {
			case where.flag != "":
				assert.Regexp(t, `(?m)^  -`+regexp.QuoteMeta(where.flag)+`( |$)`, help, "gwconform run has --%s", where.flag)
				assert.Contains(t, string(script), "--"+where.flag)
			case where.variable != "":
				assert.Contains(t, string(script), where.variable+"=", "run.sh exports %s", where.variable)
			}
		})
	}
}

// TestActionRunStep runs the action's shell step as GitHub would, with
// fake GITHUB_* files, against the built CLI (this test binary).
func TestActionRunStep(t *testing.T) {
	script, err := filepath.Abs("../../.github/action/run.sh")
	require.NoError(t, err)
	clearEnv(t)
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed (GitHub's runners have it; .ci/run installs it)")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	bin := filepath.Join(dir, "gwconform")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\n"+asCLI+"=1 exec '"+self+"' \"$@\"\n"), 0o755))
	failing, err := conformancetest.Start(refgateway.Config{Faults: []string{"accept-invalid"}}, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(failing.Close)

	tests := []struct {
		name    string
		inputs  map[string]string
		outputs []string
		summary string
		errLine string
	}{
		{name: "self-test", inputs: map[string]string{"INPUT_SELF_TEST": "true"},
			outputs: []string{"exit-code=0", "verdict=pass", "headline=conformance passed: 13 verified, 2 negative", "fail=0"}, summary: "gwconform: conformance passed"},
		{name: "an empty base URL never falls back", inputs: map[string]string{"INPUT_BASE_URL": ""},
			outputs: []string{"exit-code=2"}, errLine: "base-url is empty"},
		{name: "a failing gateway", inputs: map[string]string{"INPUT_BASE_URL": failing.BaseURL, "INPUT_TEXT_KEY": failing.Keys.Text},
			outputs: []string{"exit-code=1", "verdict=fail"}, summary: "conformance failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := t.TempDir()
			output, summary := filepath.Join(work, "output"), filepath.Join(work, "summary")
			cmd := exec.Command("bash", script)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "GWCONFORM_BIN="+bin, "GITHUB_OUTPUT="+output, "GITHUB_STEP_SUMMARY="+summary,
				"INPUT_FEATURES=models.list,chat.*", "INPUT_OUT="+filepath.Join(work, "out"))
			for k, v := range tt.inputs {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			got, err := cmd.CombinedOutput()
			require.NoError(t, err, "run.sh exits 0 (the action's last step exits with the code): %s", got)
			outs, _ := os.ReadFile(output)
			for _, want := range tt.outputs {
				assert.Contains(t, string(outs), want+"\n")
			}
			if tt.summary != "" {
				sum, err := os.ReadFile(summary)
				require.NoError(t, err)
				assert.Contains(t, string(sum), tt.summary)
			}
			if tt.errLine != "" {
				assert.Contains(t, string(got), "::error title=gwconform::"+tt.errLine)
			}
		})
	}
}
