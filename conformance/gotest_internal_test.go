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

// go test lets GWCONFORM_REQUIRE_CLIENTS decide as run --require-clients
// does: a named library LIMITED or NOT READY fails the test, naming why;
// another library, or one only UNKNOWN, does not.
func TestRequireClients(t *testing.T) {
	idChanged := results.Result{Case: "chat-stream-strict", Feature: "chat.stream", Model: "gen-5.5", Tier: vocab.TierStrict, Status: vocab.StatusFail,
		Reasons: []vocab.Reason{{Check: "sse-strict", Where: "event 2", Message: "the chunk's id differs from the first chunk's (chat.id-changed)"}}}
	for _, tt := range []struct {
		name     string
		required []string
		want     string // in the one error; "": none
	}{
		{"a library the fault limits", []string{"openai-go"}, "client openai-go is LIMITED (GWCONFORM_REQUIRE_CLIENTS): chat.stream: chat-stream-strict rule chat.id-changed fails"},
		{"a library that does not read the ids", []string{"openai-node"}, ""},
		{"none named", nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got errs
			requireClients(&got, tt.required, []results.Result{idChanged})
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			if assert.Len(t, got, 1) {
				assert.Contains(t, got[0], tt.want)
			}
		})
	}
}
