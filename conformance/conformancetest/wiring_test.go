package conformancetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/refgateway"
)

// TestKeyKindsAgree: the engine and the gateway spell key kinds apart; a
// kind one side renames or adds must not silently fall out of the wiring.
func TestKeyKindsAgree(t *testing.T) {
	gatewayKinds := []string{refgateway.KindText, refgateway.KindMessages, refgateway.KindImage, refgateway.KindAlt}
	engineKinds := make([]string, len(catalog.KeyKinds))
	for i, k := range catalog.KeyKinds {
		engineKinds[i] = string(k)
		_, err := refgateway.ParseExtraModel(string(k) + ":m-1")
		assert.NoError(t, err, "the gateway does not accept the engine's key kind %q", k)
	}
	assert.ElementsMatch(t, engineKinds, gatewayKinds)

	var keys refgateway.Keys
	fields := keyFields(&keys)
	require.Len(t, fields, len(catalog.KeyKinds), "every engine kind has a gateway key field")
	for kind, f := range fields {
		*f = "key-" + string(kind)
	}
	assert.Equal(t, refgateway.Keys{Text: "key-text", Messages: "key-messages", Image: "key-image", Alt: "key-alt"}, keys,
		"each kind maps to the gateway field of the same name")
}

func TestGatewayKeys(t *testing.T) {
	keys := GatewayKeys(map[catalog.KeyKind]string{catalog.KeyImage: "sk-test-image-0001"})
	want := refgateway.DefaultKeys()
	want.Image = "sk-test-image-0001"
	assert.Equal(t, want, keys)
}
