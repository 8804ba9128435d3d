package catalog

import (
	"fmt"
	"testing"
	"testing/fstest"
)

func TestScratch(t *testing.T) {
	fx := fstest.MapFS{"ref-a-1024.png": {Data: []byte("PNGDATA")}}
	src := `feature_group: images.edit
cases:
  - id: edit-one
    feature: images.edit.multipart
    tier: verified
    spec: "4.5"
    requirement: "x"
    key: image
    models: [gen-image-2]
    request:
      method: POST
      path: /v1/images/edits
      multipart:
        model: "{{ .Model }}"
        image[]: ["@ref-a-1024.png", "@nope.png"]
        n: 2
        prompt: "{{ .Foo }}"
    expect:
      status: 200
      json:
        data.#: 1
        x: null
        y: {exists: true, type: strin}
        z: [1]
      images: {format: gif, size: 10x}
  - id: Bad_ID
    feature: chat.basik
    tier: verifed
    modles: [a]
    request: {method: PUT, path: /v2/x, json: {a: "{{ dataURL \"zz.png\" }}", b: "{{ range 3 }}x{{end}}"}, raw: "x"}
    expect: {status: "200"}
  - id: edit-one
`
	cases := fstest.MapFS{"a.yaml": {Data: []byte(src)}}
	c, err := Load(cases, fx, []string{"image_result"})
	fmt.Println(err)
	if c != nil {
		fmt.Printf("%+v\n", c.Cases[0].Request.Multipart)
	}
}
