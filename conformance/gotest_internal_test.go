package conformance

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// errs records what a test reports.
type errs []string

func (e *errs) Helper() {}
func (e *errs) Errorf(format string, args ...any) {
	*e = append(*e, fmt.Sprintf(format, args...))
}

// go test decides as the CLI: a run left incomplete for any reason but an
// unset key fails, with the CLI's headline, though each subtest only
// skipped; an unset key stays a skip.
func TestJudgeRunAsTheCLI(t *testing.T) {
	pass := results.Result{Tier: vocab.TierVerified, Feature: "chat.basic", Status: vocab.StatusPass, HTTPStatus: 200}
	skip := func(check, msg string) results.Result {
		return results.Result{Tier: vocab.TierVerified, Feature: "messages.basic", Status: vocab.StatusSkip, Key: "messages", Reasons: []vocab.Reason{{Check: check, Message: msg}}}
	}
	notFound := func(feature string) results.Result {
		return results.Result{Tier: vocab.TierVerified, Feature: feature, Status: vocab.StatusFail, HTTPStatus: 404}
	}
	for _, tt := range []struct {
		name string
		rs   []results.Result
		want []string // the errors, in order; none: the test passes
	}{
		{"passed", []results.Result{pass}, nil},
		{"an unset key stays a skip", []results.Result{pass, skip(vocab.CheckKeyMissing, "no messages key (set GWCONFORM_MESSAGES_KEY)")}, nil},
		{"every key unset", []results.Result{skip(vocab.CheckKeyMissing, "no messages key")}, nil},
		{"a model not listed", []results.Result{pass, skip(vocab.CheckNotListed, "msg-sonnet-5 is not listed for the messages key")}, []string{
			"INCOMPLETE: incomplete: 1 verified/negative case not checked: the model is not listed for its key (see the notes); nothing that ran failed",
			"  - 1 verified/negative case not checked, nothing sent: msg-sonnet-5 is not listed for the messages key"}},
		{"a list that could not be read, beside an unset key", []results.Result{pass, skip(vocab.CheckKeyMissing, "no image key"), skip(vocab.CheckListUnread, "not checked: the messages key's model list could not be read (HTTP 500)")}, []string{
			"INCOMPLETE: incomplete: 1 verified/negative case not checked: their key's model list could not be read (see the notes); nothing that ran failed",
			"  - 1 verified/negative case not checked: the messages key's model list could not be read (HTTP 500)"}},
		{"a failure is the subtests' to say", []results.Result{notFound("chat.basic")}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got errs
			judgeRun(&got, tt.rs, false)
			assert.Equal(t, tt.want, []string(got))
		})
	}
}
