package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/conformancetest"
	"github.com/gwconform/gwconform/conformance/plan"
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
	"offers":           {flag: "offers"},
	"model-map":        {flag: "model-map"},
	"strict":           {flag: "strict"},
	"ca-cert":          {flag: "ca-cert"},
	"out":              {flag: "out"},
	"waivers":          {flag: "waivers"},
	"confirm-failures": {flag: "rerun-failed"},
	"text-key":         {variable: plan.KeyVariables["text"]},
	"messages-key":     {variable: plan.KeyVariables["messages"]},
	"image-key":        {variable: plan.KeyVariables["image"]},
	"alt-key":          {variable: plan.KeyVariables["alt"]},
	"public-image-url": {variable: "GWCONFORM_PUBLIC_IMAGE_URL"},
	"headers":          {variable: plan.HeaderVariables[""]},
	"text-headers":     {variable: plan.HeaderVariables["text"]},
	"messages-headers": {variable: plan.HeaderVariables["messages"]},
	"image-headers":    {variable: plan.HeaderVariables["image"]},
	"alt-headers":      {variable: plan.HeaderVariables["alt"]},
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
	_, help, _ := gw(t, "run", "-h")
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
	bin, script := actionBinary(t)
	failing, err := conformancetest.Start(refgateway.Config{Faults: []string{"accept-invalid"}}, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(failing.Close)
	good, err := conformancetest.Start(refgateway.Config{}, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(good.Close)

	tests := []struct {
		name    string
		inputs  map[string]string
		stale   bool // an earlier run's reports in the output directory
		outputs []string
		summary string
		errLine string
		said    []string // in the step's log
		notSaid []string
	}{
		{name: "self-test", inputs: map[string]string{"INPUT_SELF_TEST": "true"},
			outputs: []string{"exit-code=0", "verdict=pass", "headline=conformance passed: 14 verified, 2 negative", "fail=0"}, summary: "gwconform: conformance passed"},
		{name: "an empty base URL never falls back", inputs: map[string]string{"INPUT_BASE_URL": ""},
			outputs: []string{"exit-code=2"}, errLine: "base-url is empty"},
		{name: "a failing gateway", inputs: map[string]string{"INPUT_BASE_URL": failing.BaseURL, "INPUT_TEXT_KEY": failing.Keys.Text},
			outputs: []string{"exit-code=1", "verdict=fail"}, summary: "conformance failed", notSaid: []string{"re-running"}},
		{name: "confirm-failures re-runs a failed run (exit 1)",
			inputs:  map[string]string{"INPUT_BASE_URL": failing.BaseURL, "INPUT_TEXT_KEY": failing.Keys.Text, "INPUT_CONFIRM_FAILURES": "true"},
			outputs: []string{"exit-code=1", "verdict=fail"}, said: []string{"re-running "}},
		{name: "confirm-failures leaves an incomplete run (exit 3) as it is",
			inputs:  map[string]string{"INPUT_BASE_URL": good.BaseURL, "INPUT_CONFIRM_FAILURES": "true"},
			outputs: []string{"exit-code=3", "verdict=incomplete", "headline=incomplete: none of the"}, notSaid: []string{"re-running"}},
		{name: "a run that cannot start is read by its exit code, the earlier reports kept",
			inputs: map[string]string{"INPUT_BASE_URL": good.BaseURL, "INPUT_TEXT_KEY": good.Keys.Text, "INPUT_TIERS": "verified,negatve"}, stale: true,
			outputs: []string{"exit-code=2"}, errLine: "the run could not start (exit 2)", said: []string{`did you mean "negative"`}},
		{name: "a waivers path that does not exist fails at once",
			inputs:  map[string]string{"INPUT_BASE_URL": good.BaseURL, "INPUT_TEXT_KEY": good.Keys.Text, "INPUT_WAIVERS": "no/such/waivers.yaml"},
			outputs: []string{"exit-code=2"}, errLine: "waivers: no/such/waivers.yaml does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := t.TempDir()
			out := filepath.Join(work, "out")
			if tt.stale {
				require.NoError(t, os.MkdirAll(out, 0o755))
				for _, f := range []string{"report.json", "matrix.md", "report.html", "junit.xml"} {
					require.NoError(t, os.WriteFile(filepath.Join(out, f), []byte("{}"), 0o644))
				}
			}
			cmd := actionStep(bin, script, work, tt.inputs)
			got, err := cmd.CombinedOutput()
			require.NoError(t, err, "run.sh exits 0 (the action's last step exits with the code): %s", got)
			outs, _ := os.ReadFile(filepath.Join(work, "output"))
			for _, want := range tt.outputs {
				assert.Contains(t, string(outs), want)
				if !strings.HasSuffix(want, " the") { // a headline's start
					assert.Contains(t, string(outs), want+"\n")
				}
			}
			if tt.summary != "" {
				sum, err := os.ReadFile(filepath.Join(work, "summary"))
				require.NoError(t, err)
				assert.Contains(t, string(sum), tt.summary)
			}
			if tt.errLine != "" {
				assert.Contains(t, string(got), "::error title=gwconform::"+tt.errLine)
			}
			for _, s := range tt.said {
				assert.Contains(t, string(got), s)
			}
			for _, s := range tt.notSaid {
				assert.NotContains(t, string(got), s)
			}
			if tt.stale {
				assert.NotContains(t, string(outs), "verdict=", "the earlier run's report is not read as this one's")
				assert.FileExists(t, filepath.Join(out, "report.json"), "a refused start deletes nothing")
			}
		})
	}
}

// A cancelled or timed-out job: the runner sends SIGINT to the step's
// process only (run.sh, which the step execs), never to its children.
// run.sh passes it on; gwconform writes its reports, incomplete, and exits
// 3; the step's outputs say so, and nothing is re-run after it.
func TestActionRunStepInterrupted(t *testing.T) {
	bin, script := actionBinary(t)
	lat, err := refgateway.ParseLatency("chat=2s")
	require.NoError(t, err)
	slow, err := conformancetest.Start(refgateway.Config{Latency: lat}, fixtures.FS)
	require.NoError(t, err)
	t.Cleanup(slow.Close)

	work := t.TempDir()
	cmd := actionStep(bin, script, work, map[string]string{"INPUT_BASE_URL": slow.BaseURL, "INPUT_TEXT_KEY": slow.Keys.Text,
		"INPUT_CONFIRM_FAILURES": "true"})
	var log syncBuffer
	cmd.Stdout, cmd.Stderr = &log, &log
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	jsonl := filepath.Join(work, "out", "results.jsonl")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if b, _ := os.ReadFile(jsonl); bytes.Count(b, []byte("\n")) >= 1 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("run.sh ended (%v) before any result: %s", err, log.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no result after 60 s: %s", log.String())
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT)) // run.sh alone, as the runner does
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("run.sh did not end within 60 s of SIGINT: %s", log.String())
	}
	require.NoError(t, err, "run.sh exits 0 (the action's last step exits with the code): %s", log.String())
	outs, err := os.ReadFile(filepath.Join(work, "output"))
	require.NoError(t, err)
	assert.Contains(t, string(outs), "exit-code=3\n")
	assert.Contains(t, string(outs), "verdict=incomplete\n")
	assert.Regexp(t, `(?m)^headline=incomplete: interrupted after \d+ of \d+ calls`, string(outs))
	assert.Contains(t, log.String(), "::warning title=gwconform::interrupted (SIGINT)")
	assert.NotContains(t, log.String(), "re-running", "an interrupted job starts nothing more")
	assert.FileExists(t, filepath.Join(work, "out", "report.json"))
}

// actionBinary is a gwconform for run.sh (this test binary acting as the
// CLI) and run.sh's absolute path.
func actionBinary(t *testing.T) (bin, script string) {
	t.Helper()
	script, err := filepath.Abs("../../.github/action/run.sh")
	require.NoError(t, err)
	clearEnv(t) // changes directory
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed (GitHub's runners have it; .ci/run installs it)")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	bin = filepath.Join(t.TempDir(), "gwconform")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\n"+asCLI+"=1 exec '"+self+"' \"$@\"\n"), 0o755))
	return bin, script
}

// actionStep is the action's run step in work, with fake GITHUB_* files
// (work/output, work/summary) and the inputs given.
func actionStep(bin, script, work string, inputs map[string]string) *exec.Cmd {
	cmd := exec.Command("bash", script)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GWCONFORM_BIN="+bin, "GITHUB_OUTPUT="+filepath.Join(work, "output"),
		"GITHUB_STEP_SUMMARY="+filepath.Join(work, "summary"),
		"INPUT_FEATURES=models.list,chat.*", "INPUT_OUT="+filepath.Join(work, "out"))
	for k, v := range inputs {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// The action and the nightly workflow keep what the exit codes promise:
// the run step is exec'd (the runner signals that process only), every
// output is uploaded, an interrupted run's too; the nightly merges after a
// failed shard (merge names it missing), calls merge and diff as a built
// binary (go run turns every exit code into 1), publishes whatever merge's
// code, and fails the job with it afterwards.
func TestActionAndNightlyKeepTheExitCodes(t *testing.T) {
	type step = workflowStep
	raw, err := os.ReadFile("../../action.yml")
	require.NoError(t, err)
	var action struct {
		Runs struct{ Steps []step } `yaml:"runs"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &action))
	var upload *step
	for i, s := range action.Runs.Steps {
		if s.ID == "run" {
			assert.True(t, strings.HasPrefix(strings.TrimSpace(s.Run), "exec "), "the run step execs run.sh: %q", s.Run)
		}
		if strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
			upload = &action.Runs.Steps[i]
		}
	}
	require.NotNil(t, upload, "action.yml uploads the outputs")
	assert.True(t, strings.HasPrefix(upload.If, "${{ always()"), "an interrupted run's reports are uploaded too: %q", upload.If)
	for _, f := range []string{"results.jsonl", "report.json", "matrix.md", "report.html", "junit.xml", "manifest.json"} {
		assert.Contains(t, upload.With["path"], "/"+f+"\n", "the action uploads %s", f)
	}

	// The suite's own nightly and the one a company copies keep them alike.
	for _, file := range []string{"../../.github/workflows/nightly.yml", "../../.github/examples/nightly.yml"} {
		t.Run(filepath.Base(filepath.Dir(file)), func(t *testing.T) {
			wf := readWorkflow(t, file)
			for _, s := range wf.Jobs["shard"].Steps {
				if w, ok := s.With["waivers"].(string); ok {
					// The action fails on a waivers path that does not exist: the
					// documented workflow gives its optional file only when present.
					assert.Contains(t, w, "hashFiles(env.WAIVERS)", "step %q", s.Name)
				}
			}
			merge := wf.Jobs["merge"]
			assert.Equal(t, "${{ !cancelled() }}", merge.If, "the merge runs after a failed shard")
			require.NotEmpty(t, merge.Steps)
			merged := false
			for i, s := range merge.Steps {
				assert.NotRegexp(t, `go run \./cmd/gwconform (merge|diff)`, s.Run, "step %q: go run hides merge's and diff's exit codes", s.Name)
				if s.ID == "merge" {
					merged = true
					assert.Contains(t, s.Run, `merge out/merged`)
					continue
				}
				if !merged {
					continue
				}
				last := i == len(merge.Steps)-1
				if last {
					assert.Equal(t, "${{ steps.merge.outputs.exit-code }}", s.Env["CODE"], "the last step fails the job with merge's code")
					assert.Contains(t, s.Run, `exit "${CODE`)
					continue
				}
				assert.NotContains(t, s.If, "exit-code", "step %q is published whatever merge's exit code", s.Name)
			}
			assert.True(t, merged, "%s has a step with id merge", file)
		})
	}
}

// workflowStep is what the tests read of a workflow's or the action's step.
type workflowStep struct {
	ID   string            `yaml:"id"`
	Name string            `yaml:"name"`
	If   string            `yaml:"if"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
	With map[string]any    `yaml:"with"`
}

type workflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		If    string         `yaml:"if"`
		Steps []workflowStep `yaml:"steps"`
	} `yaml:"jobs"`
}

func readWorkflow(t *testing.T, file string) workflow {
	t.Helper()
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	var wf workflow
	require.NoError(t, yaml.Unmarshal(raw, &wf))
	return wf
}

// The nightly a company copies works from its own repository (issue 34):
// the action and the CLI come from the suite's release, at one ref; nothing
// refers to this repository's checkout; it has the jobs of the suite's own.
func TestCompanyNightlyUsesTheRelease(t *testing.T) {
	own := readWorkflow(t, "../../.github/workflows/nightly.yml")
	wf := readWorkflow(t, "../../.github/examples/nightly.yml")
	ref := wf.Env["GWCONFORM_REF"]
	require.NotEmpty(t, ref, "the workflow names the suite's ref in GWCONFORM_REF")
	for name := range own.Jobs {
		assert.Contains(t, wf.Jobs, name, "the company's nightly has the job %s", name)
	}
	var action, install bool
	for name, job := range wf.Jobs {
		for _, s := range job.Steps {
			assert.False(t, strings.HasPrefix(s.Uses, "./"), "job %s, step %q: uses this repository's checkout", name, s.Name)
			assert.NotContains(t, s.Run, "./cmd/gwconform", "job %s, step %q: builds this repository's checkout", name, s.Name)
			if strings.HasPrefix(s.Uses, "gwconform/gwconform@") {
				action = true
				assert.Equal(t, "gwconform/gwconform@"+ref, s.Uses, "the action at GWCONFORM_REF")
			}
			if strings.Contains(s.Run, "go install") {
				install = true
				assert.Contains(t, s.Run, `go install "github.com/gwconform/gwconform/cmd/gwconform@${GWCONFORM_REF}"`)
			}
		}
	}
	assert.True(t, action, "the shards run the action gwconform/gwconform@<ref>")
	assert.True(t, install, "the merge job installs the CLI with go install …@<ref>")
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "(../../.github/examples/nightly.yml)", "the README's nightly section points at it")
}

// action.yml says what run.sh does with the waivers input (issue 34): a
// path that does not exist fails the step (TestActionRunStep runs it), so
// the input's description must not promise it is "used when it exists".
func TestActionSaysWhatWaiversDo(t *testing.T) {
	raw, err := os.ReadFile("../../action.yml")
	require.NoError(t, err)
	var action struct {
		Inputs map[string]struct {
			Description string `yaml:"description"`
		} `yaml:"inputs"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &action))
	said := action.Inputs["waivers"].Description
	assert.NotContains(t, said, "when it exists")
	assert.Contains(t, said, "A path that does not exist fails the step at once (exit 2)")
}
