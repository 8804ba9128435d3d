package plan

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// namesCatalog has a model of each key kind, an image model a negative
// case sends with the messages key, and a list case.
func namesCatalog() *catalog.Catalog {
	sends := func(id string, key catalog.KeyKind, tier vocab.Tier, path string, models ...string) catalog.Case {
		return catalog.Case{ID: id, Feature: "f." + id, Key: key, Tier: tier, Models: models,
			Request: catalog.Request{Method: "POST", Path: path, JSON: map[string]any{"model": "{{ .Model }}"}}}
	}
	return &catalog.Catalog{Cases: []catalog.Case{
		sends("chat", catalog.KeyText, vocab.TierVerified, "/v1/chat/completions", "gen-5.5"),
		sends("responses", catalog.KeyText, vocab.TierExplore, "/v1/responses", "gen-5.6-luna"),
		sends("messages", catalog.KeyMessages, vocab.TierVerified, "/v1/messages", "msg-sonnet-5", "msg-haiku-4-5-20251001"),
		sends("key-refused", catalog.KeyMessages, vocab.TierNegative, "/v1/images/generations", "gen-image-2"),
		sends("generate", catalog.KeyImage, vocab.TierVerified, "/v1/images/generations", "gen-image-2"),
		sends("alt", catalog.KeyAlt, vocab.TierVerified, "/v1/messages", "alt-flash"),
		{ID: "image-list", Feature: "models.list", Key: catalog.KeyImage, Tier: vocab.TierVerified, Models: []string{"gen-image-2"},
			Request: catalog.Request{Method: "GET", Path: "/v1/models"}, Expect: catalog.Expect{Listed: true}},
	}}
}

func TestResolveNames(t *testing.T) {
	vendor := map[catalog.KeyKind]KeyList{
		catalog.KeyText:     {IDs: []string{"gpt-5.5", "gpt-5.6-luna"}},
		catalog.KeyMessages: {IDs: []string{"claude-sonnet-5", "claude-haiku-4-5-20251001"}},
		catalog.KeyImage:    {IDs: []string{"gpt-image-2"}},
		catalog.KeyAlt:      {IDs: []string{"gemini-flash"}},
	}
	text := func(ids ...string) map[catalog.KeyKind]KeyList {
		return map[catalog.KeyKind]KeyList{catalog.KeyText: {IDs: ids}}
	}
	tests := []struct {
		name   string
		lists  map[catalog.KeyKind]KeyList
		given  map[string]string
		spec   string
		source NameSource
		sent   string
		// retired is what the text key sends for an id of the spec's form
		// no list shows, when set.
		retired string
	}{
		{"a vendor word", vendor, nil, "gen-5.5", NameResolved, "gpt-5.5", "gpt-no-such-model-0000"},
		{"a vendor word, messages", vendor, nil, "msg-haiku-4-5-20251001", NameResolved, "claude-haiku-4-5-20251001", ""},
		{"the image model its negative sends with another key", vendor, nil, "gen-image-2", NameResolved, "gpt-image-2", ""},
		{"a provider path", text("openai/gpt-5.5"), nil, "gen-5.5", NameResolved, "openai/gpt-5.5", "openai/gpt-no-such-model-0000"},
		{"Bedrock's region, vendor and version", text("us.anthropic.gpt-5.5-v1:0"), nil, "gen-5.5", NameResolved, "us.anthropic.gpt-5.5-v1:0", "gen-no-such-model-0000"},
		{"Vertex's version", text("gpt-5.5@20260101"), nil, "gen-5.5", NameResolved, "gpt-5.5@20260101", ""},
		{"a numbered version", text("gpt-5.5-001"), nil, "gen-5.5", NameResolved, "gpt-5.5-001", ""},
		{"the spec id itself listed", text("gpt-5.5", "gen-5.5"), nil, "gen-5.5", NameListed, "gen-5.5", "gen-no-such-model-0000"},
		{"the plain id before its snapshot", text("gpt-5.5-2026-01-01", "gpt-5.5"), nil, "gen-5.5", NameResolved, "gpt-5.5", ""},
		{"two spellings: ambiguous", text("gpt-5.5", "openai/gpt-5.5"), nil, "gen-5.5", NameAmbiguous, "gen-5.5", ""},
		{"a word the vendor table does not hold names nothing", text("grok-5.5", "chatgpt-5.5", "meta-llama/gpt-5.5"), nil, "gen-5.5", NameUnlisted, "gen-5.5", ""},
		{"the audit's spellings: Azure's two segments", text("azure/openai/gpt-5.5"), nil, "gen-5.5", NameResolved, "azure/openai/gpt-5.5", "azure/openai/gpt-no-such-model-0000"},
		{"the audit's spellings: Vertex's resource name", text("publishers/openai/models/gpt-5.5"), nil, "gen-5.5", NameResolved, "publishers/openai/models/gpt-5.5", ""},
		{"two snapshots and no plain id: ambiguous", text("gpt-5.5-2026-01-01", "gpt-5.5-2026-02-01"), nil, "gen-5.5", NameAmbiguous, "gen-5.5", ""},
		{"an empty list", text(), nil, "gen-5.5", NameUnlisted, "gen-5.5", ""},
		{"an alias only", text("company-chat", "gpt-5.6-luna"), nil, "gen-5.5", NameUnlisted, "gen-5.5", "gpt-no-such-model-0000"},
		{"a list that cannot be read", map[catalog.KeyKind]KeyList{catalog.KeyText: {Unread: "HTTP 404"}}, nil, "gen-5.5", NameUnread, "gen-5.5", ""},
		{"a word given over an unreadable list", map[catalog.KeyKind]KeyList{catalog.KeyText: {Unread: "HTTP 500"}}, map[string]string{"gen": "openai/gpt"}, "gen-5.5", NameGiven, "openai/gpt-5.5", "openai/gpt-no-such-model-0000"},
		{"an id given wins over its word", text("gpt-5.5"), map[string]string{"gen": "gpt", "gen-5.5": "company-chat"}, "gen-5.5", NameGiven, "company-chat", "gpt-no-such-model-0000"},
		{"given over a resolvable id", text("gpt-5.5"), map[string]string{"gen-5.5": "company-chat"}, "gen-5.5", NameGiven, "company-chat", ""},
		{"given over an unreadable list", map[catalog.KeyKind]KeyList{catalog.KeyText: {Unread: "HTTP 500"}}, map[string]string{"gen-5.5": "company-chat"}, "gen-5.5", NameGiven, "company-chat", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := ResolveNames(namesCatalog(), tt.lists, tt.given)
			e := n.Entries[tt.spec]
			assert.Equal(t, tt.source, e.Source, "%+v", e)
			assert.Equal(t, tt.sent, n.Gateway(catalog.KeyText, tt.spec))
			if tt.retired != "" {
				assert.Equal(t, tt.retired, n.Gateway(catalog.KeyText, "gen-no-such-model-0000"))
			}
		})
	}
}

func TestResolveNamesSaysWhatItFound(t *testing.T) {
	cat := namesCatalog()
	t.Run("resolved, once per key, and a retired id in the key's words", func(t *testing.T) {
		n := ResolveNames(cat, map[catalog.KeyKind]KeyList{
			catalog.KeyText:     {IDs: []string{"gpt-5.5", "gpt-5.6-luna"}},
			catalog.KeyMessages: {IDs: []string{"anthropic/claude-sonnet-5", "anthropic/claude-haiku-4-5-20251001"}},
		}, nil)
		assert.Equal(t, []string{
			"text key: gen-5.5 → gpt-5.5; gen-5.6-luna → gpt-5.6-luna",
			"messages key: msg-haiku-4-5-20251001 → anthropic/claude-haiku-4-5-20251001; msg-sonnet-5 → anthropic/claude-sonnet-5",
		}, n.Said())
		assert.Equal(t, "anthropic/claude-sonnet-4-6", n.Gateway(catalog.KeyMessages, "msg-sonnet-4-6"))
		assert.Equal(t, "anthropic/claude-sonnet-4-6", n.Gateway(catalog.KeyText, "msg-sonnet-4-6"), "the one word the lists agree on")
		assert.Equal(t, []string{"gen-5.5", "gpt-5.5"}, n.Both(catalog.KeyText, "gen-5.5"))
		assert.True(t, n.Covers(cat, "gpt-5.5"))
		assert.True(t, n.Covers(cat, "gpt-5.5-2026-01-01"), "a snapshot of a resolved model is no new model")
		assert.False(t, n.Covers(cat, "gpt-5.7"))
	})
	t.Run("an ambiguity names the candidates and the flag", func(t *testing.T) {
		n := ResolveNames(cat, map[catalog.KeyKind]KeyList{catalog.KeyText: {IDs: []string{"openai/gpt-5.5", "gpt-5.5"}}}, nil)
		err := n.Ambiguities([]string{"gen-5.5"})
		require.Error(t, err)
		assert.Equal(t, "gen-5.5: the text key lists 2 ids that name it (gpt-5.5, openai/gpt-5.5); pick one with --model-map gen-5.5=ID", err.Error())
		assert.NoError(t, n.Ambiguities([]string{"msg-sonnet-5"}), "a model the selection does not use")
	})
	t.Run("an unlisted model names the flag and what the key lists", func(t *testing.T) {
		n := ResolveNames(cat, map[catalog.KeyKind]KeyList{catalog.KeyText: {IDs: []string{"company-chat", "gen-5.6-luna"}}}, nil)
		chat := cat.Case("chat")
		why := n.Unchecked(chat, "gen-5.5")
		require.NotNil(t, why)
		assert.Equal(t, []string{why.Message}, n.Said(), "said before the first call")
		assert.Equal(t, vocab.CheckNotListed, why.Check)
		assert.Equal(t, "gen-5.5 is not listed for the text key (it lists company-chat, gen-5.6-luna); if the gateway names it otherwise, map it: --model-map gen-5.5=ID", why.Message)
		assert.Nil(t, n.Unchecked(chat, "gen-5.6-luna"))

		var many []string
		for i := range 300 {
			many = append(many, fmt.Sprintf("vendor/model-%03d", i))
		}
		n = ResolveNames(cat, map[catalog.KeyKind]KeyList{catalog.KeyText: {IDs: many}}, nil)
		assert.Len(t, n.Entries["gen-5.5"].Listed, 8, "a relay's hundreds are not kept in every record")
		assert.Contains(t, n.Unchecked(chat, "gen-5.5").Message, "vendor/model-007 and 292 more)")
	})
	t.Run("an unreadable list and a given name the list lacks are said", func(t *testing.T) {
		n := ResolveNames(cat, map[catalog.KeyKind]KeyList{
			catalog.KeyText:  {IDs: []string{"gpt-5.5", "gen-5.6-luna"}},
			catalog.KeyImage: {Unread: "HTTP 404"},
		}, map[string]string{"gen-5.5": "company-chat"})
		assert.Equal(t, []string{
			"text key: gen-5.5 → company-chat (--model-map; not in the key's list: sent anyway)",
			"image key's models not checked: the image key's model list could not be read (HTTP 404); nothing is sent under a guessed id; name its models with the word form: --model-map gen=gpt (every gen- model), or a pair per model: --model-map SPEC=ID",
		}, n.Said())
	})
	t.Run("given names are said when no list was read", func(t *testing.T) {
		n := ResolveNames(cat, nil, map[string]string{"gen-5.5": "openai,gpt-5.5", "msg": "anthropic,claude"})
		assert.Equal(t, []string{"--model-map: gen-5.5 → openai,gpt-5.5; msg → anthropic,claude"}, n.Said())
	})
}

func TestPlanUnderGatewayNames(t *testing.T) {
	cat := namesCatalog()
	keys := map[catalog.KeyKind]string{catalog.KeyText: "k", catalog.KeyMessages: "k", catalog.KeyImage: "k", catalog.KeyAlt: "k"}
	names := ResolveNames(cat, map[catalog.KeyKind]KeyList{
		catalog.KeyText:  {IDs: []string{"gpt-5.5"}},
		catalog.KeyImage: {IDs: []string{"gpt-image-3"}},
	}, nil)
	target := Target{Keys: keys, Names: names}
	calls, err := Make(cat, target, Selection{})
	require.NoError(t, err)
	got := map[string]Call{}
	for _, c := range calls {
		got[c.ID()] = c
	}
	chat := got["f.chat/gen-5.5/chat"]
	assert.Nil(t, chat.Skip)
	assert.Equal(t, "gpt-5.5", chat.Sent)
	assert.Equal(t, "gpt-5.5", chat.Result(vocab.StatusPass).GatewayModel)
	for _, id := range []string{"f.generate/gen-image-2/generate", "f.key-refused/gen-image-2/key-refused"} {
		require.NotNil(t, got[id].Skip, id)
		assert.Equal(t, vocab.CheckNotListed, got[id].Skip.Check, id)
	}
	assert.Nil(t, got["models.list/gen-image-2/image-list"].Skip, "a list case still runs, and says what is missing")
	assert.Nil(t, got["f.alt/alt-flash/alt"].Skip, "a kind whose list was not read sends the spec's id")
	assert.Equal(t, "alt-flash", got["f.alt/alt-flash/alt"].Sent)

	// A probe's new model is sent as its list names it, even where the
	// key's list puts another word in place of its neutral one.
	probed, err := Probe(cat, target, []NewModel{{ID: "gen-5.7", Key: catalog.KeyText}}, Selection{})
	require.NoError(t, err)
	require.NotEmpty(t, probed)
	assert.Equal(t, "gpt-no-such-model", target.Names.Gateway(catalog.KeyText, "gen-no-such-model"), "the word is learned")
	for _, c := range probed {
		assert.Equal(t, "gen-5.7", c.Sent)
	}

	// --model globs take either name; an exclusion of either excludes.
	for _, tt := range []struct {
		globs []string
		want  int
	}{{[]string{"gpt-5.5"}, 1}, {[]string{"gen-5.5"}, 1}, {[]string{"gpt-*"}, 5}, {[]string{"!gpt-5.5"}, len(calls) - 1},
		// The table's vendor word names a spec model whatever its key's
		// list says: gpt-image-2 is gen-image-2 (unlisted here), and gpt-*
		// every gen- model.
		{[]string{"gpt-image-2"}, 3}} {
		sel := Selection{Models: tt.globs}
		require.NoError(t, sel.Check(cat, names), tt.globs)
		picked, err := Make(cat, target, sel)
		require.NoError(t, err)
		assert.Len(t, picked, tt.want, "%v", tt.globs)
	}
	assert.ErrorContains(t, Selection{Models: []string{"gpt-9*"}}.Check(cat, names), `--model "gpt-9*" matches nothing in the catalog`)

	// Before any list was read (plan, a replay), the table's spellings
	// are names of the spec models; a word outside the table is not.
	none := ModelNames{}
	assert.NoError(t, Selection{Models: []string{"gpt-image-2"}}.Check(cat, none))
	assert.Equal(t, []string{"gen-image-2", "gpt-image-2"}, none.Both(catalog.KeyImage, "gen-image-2"))
	assert.ErrorContains(t, Selection{Models: []string{"chatgpt-image-2"}}.Check(cat, none), `matches nothing in the catalog`)
}

func TestParseAndCheckModelMap(t *testing.T) {
	given, err := ParseModelMap([]string{"gen-5.5=gpt-5.5, msg-sonnet-5 = claude-sonnet-5", "alt-flash=google/gemini-flash"})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"gen-5.5": "gpt-5.5", "msg-sonnet-5": "claude-sonnet-5", "alt-flash": "google/gemini-flash"}, given)
	for _, bad := range []string{"gen-5.5", "=gpt", "gen-5.5=", "gen-5.5=a,gen-5.5=b"} {
		_, err := ParseModelMap([]string{bad})
		assert.Error(t, err, bad)
	}
	assert.NoError(t, CheckModelMap(namesCatalog(), given))
	err = CheckModelMap(namesCatalog(), map[string]string{"gen-5.4": "gpt-5.4"})
	require.Error(t, err)
	assert.Equal(t, `--model-map gen-5.4=gpt-5.4: gen-5.4 is no model of the catalog nor one of the words gen, msg, alt; did you mean "gen-5.5"?`, err.Error())
}

// The word form maps every id with the word, and a comma splits only
// before a piece holding "=": an id may hold commas (provider,model).
func TestModelMapWordsAndCommas(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want map[string]string
	}{
		{[]string{"gen=gpt,msg=claude,alt=gemini"}, map[string]string{"gen": "gpt", "msg": "claude", "alt": "gemini"}},
		{[]string{"gen=openai/gpt"}, map[string]string{"gen": "openai/gpt"}},
		{[]string{"gen-5.5=openrouter,openai/gpt-5.5,msg=claude"}, map[string]string{"gen-5.5": "openrouter,openai/gpt-5.5", "msg": "claude"}},
		{[]string{"gen-5.5=a,b,c", "msg-sonnet-5=d"}, map[string]string{"gen-5.5": "a,b,c", "msg-sonnet-5": "d"}},
		{[]string{"gen=gpt,", ",msg=claude"}, map[string]string{"gen": "gpt", "msg": "claude"}},
	} {
		got, err := ParseModelMap(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
	_, err := ParseModelMap([]string{"gen=g pt"})
	assert.ErrorContains(t, err, "white space")

	cat := namesCatalog()
	cat.Cases = append(cat.Cases, catalog.Case{ID: "retired", Feature: "f.retired", Key: catalog.KeyMessages, Tier: vocab.TierNegative,
		Request: catalog.Request{Method: "POST", Path: "/v1/messages", JSON: map[string]any{"model": "msg-sonnet-4-6"}}})
	given, err := ParseModelMap([]string{"gen=gpt,msg=claude"})
	require.NoError(t, err)
	require.NoError(t, CheckModelMap(cat, given))
	require.NoError(t, CheckModelMap(cat, map[string]string{"msg-sonnet-4-6": "claude-sonnet-4-6"}), "the retired id may be mapped by its own id")
	n := ResolveNames(cat, map[catalog.KeyKind]KeyList{catalog.KeyMessages: {Unread: "HTTP 500"}}, given)
	assert.Equal(t, "claude-sonnet-4-6", n.Gateway(catalog.KeyMessages, "msg-sonnet-4-6"), "the retired id follows the mapped word")
	assert.Equal(t, "claude-haiku-4-5-20251001", n.Gateway(catalog.KeyMessages, "msg-haiku-4-5-20251001"))
	assert.Equal(t, map[string]string{"gen-5.5": "gpt-5.5", "gen-5.6-luna": "gpt-5.6-luna", "gen-image-2": "gpt-image-2",
		"msg-sonnet-5": "claude-sonnet-5", "msg-haiku-4-5-20251001": "claude-haiku-4-5-20251001", "msg-sonnet-4-6": "claude-sonnet-4-6"},
		ExpandModelMap(cat, given))
}

// A key whose list cannot be read sends no guessed id: its models' calls
// and the calls naming an id of its kind in the case (the retired id) are
// skipped, one line for the key saying what to do; a mapped model, or a
// word learned elsewhere, is sent.
func TestUnreadListSendsNoGuess(t *testing.T) {
	cat := namesCatalog()
	cat.Cases = append(cat.Cases, catalog.Case{ID: "retired", Feature: "f.retired", Key: catalog.KeyMessages, Tier: vocab.TierNegative,
		Models: []string{"msg-sonnet-5"}, Request: catalog.Request{Method: "POST", Path: "/v1/messages", JSON: map[string]any{"model": "msg-sonnet-4-6"}}})
	lists := map[catalog.KeyKind]KeyList{catalog.KeyMessages: {Unread: "HTTP 500 Internal Server Error"}, catalog.KeyText: {IDs: []string{"gpt-5.5"}}}
	n := ResolveNames(cat, lists, nil)
	for _, tt := range []struct{ cs, model string }{{"messages", "msg-sonnet-5"}, {"retired", "msg-sonnet-5"}} {
		why := n.Unchecked(cat.Case(tt.cs), tt.model)
		require.NotNil(t, why, tt.cs)
		assert.Equal(t, vocab.CheckListUnread, why.Check)
		assert.Equal(t, "not checked: the messages key's model list could not be read (HTTP 500 Internal Server Error); nothing is sent under a guessed id; name its models with the word form: --model-map msg=claude (every msg- model), or a pair per model: --model-map SPEC=ID", why.Message)
	}
	assert.Nil(t, n.Unchecked(cat.Case("chat"), "gen-5.5"), "another key's list was read")
	assert.Nil(t, n.Unchecked(cat.Case("image-list"), "gen-image-2"), "a case that sends no model")

	mapped := ResolveNames(cat, lists, map[string]string{"msg": "claude"})
	assert.Nil(t, mapped.Unchecked(cat.Case("messages"), "msg-sonnet-5"))
	assert.Nil(t, mapped.Unchecked(cat.Case("retired"), "msg-sonnet-5"))
	one := ResolveNames(cat, lists, map[string]string{"msg-sonnet-5": "claude-sonnet-5"})
	assert.Nil(t, one.Unchecked(cat.Case("messages"), "msg-sonnet-5"), "a pair maps its model")
	assert.NotNil(t, one.Unchecked(cat.Case("messages"), "msg-haiku-4-5-20251001"), "and that model only")
}
