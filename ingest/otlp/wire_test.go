package otlp

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/vigilhq/vigil/ingest/otlp/otlptest"
)

// sameAsDecode checks that whenever wireCalls reads body, Decode takes it
// too and Calls finds the same calls; it reports whether wireCalls read it.
func sameAsDecode(t *testing.T, body []byte) bool {
	t.Helper()
	batches, ignored, ok := wireCalls(body)
	if !ok {
		return false
	}
	req, err := Decode(body, Protobuf)
	if err != nil {
		t.Fatalf("wireCalls read %x, Decode refused it: %v", body, err)
	}
	want, wantIgnored := Calls(req)
	if !reflect.DeepEqual(batches, want) || ignored != wantIgnored {
		t.Fatalf("body %x: got %+v, %d ignored, want %+v, %d ignored", body, batches, ignored, want, wantIgnored)
	}
	return true
}

// wireSeeds are exports the fast path must read: the JSON test export as
// protobuf, otlptest's spans, and bodies protobuf merges (fields sent
// again, two exports back to back, a known field with another wire type).
func wireSeeds(t testing.TB) [][]byte {
	req, err := Decode([]byte(export), JSON)
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := otlptest.Encode("m1", 7, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	kv := func(k string, v []byte) []byte {
		b := protowire.AppendTag(nil, 1, protowire.BytesType)
		b = protowire.AppendString(b, k)
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		return protowire.AppendBytes(b, v)
	}
	str := func(s string) []byte {
		return protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), s)
	}
	msg := func(b []byte, num protowire.Number, v []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
	}
	var sp []byte
	sp = msg(sp, 9, kv("gen_ai.request.model", str("a")))
	sp = msg(sp, 9, kv("gen_ai.request.model", str("b"))) // sent again: the last wins
	sp = msg(sp, 9, kv("gen_ai.usage.input_tokens", protowire.AppendFixed64(protowire.AppendTag(nil, 4, protowire.Fixed64Type), 0x4029000000000000)))
	sp = protowire.AppendVarint(protowire.AppendTag(sp, 9, protowire.VarintType), 5) // attributes as a varint: unknown
	sp = msg(sp, 15, protowire.AppendVarint(protowire.AppendTag(nil, 3, protowire.VarintType), 2))
	sp = msg(sp, 15, protowire.AppendString(protowire.AppendTag(nil, 2, protowire.BytesType), "late")) // merged status
	sp = msg(sp, 5, []byte("first"))
	sp = msg(sp, 5, []byte("second"))
	sp = protowire.AppendFixed64(protowire.AppendTag(sp, 7, protowire.Fixed64Type), 1)
	sp = protowire.AppendFixed64(protowire.AppendTag(sp, 8, protowire.Fixed64Type), 2_000_001)
	rs := msg(nil, 1, msg(nil, 1, kv("service.name", str("svc"))))
	rs = msg(rs, 1, msg(nil, 1, kv("service.name", str("svc2")))) // resource merged
	rs = msg(rs, 2, msg(nil, 2, sp))
	merged := msg(nil, 1, rs)
	return [][]byte{fromJSON, gen.Body, append(append([]byte{}, fromJSON...), gen.Body...), merged}
}

func TestWireCallsAsDecode(t *testing.T) {
	seeds := wireSeeds(t)
	for i, body := range seeds {
		if !sameAsDecode(t, body) {
			t.Fatalf("seed %d: got left to Decode, want read from the wire", i)
		}
	}
	// Bodies cut, flipped and spliced at random: whatever the fast path
	// reads must be what Decode reads.
	r := rand.New(rand.NewPCG(18, 6))
	read := 0
	for range 20000 {
		b := append([]byte{}, seeds[r.IntN(len(seeds))]...)
		for range 1 + r.IntN(3) {
			switch i := r.IntN(len(b)); r.IntN(3) {
			case 0:
				b[i] ^= byte(1 << r.IntN(8))
			case 1:
				b = b[:i]
			default:
				b[i] = byte(r.IntN(256))
			}
			if len(b) == 0 {
				break
			}
		}
		if sameAsDecode(t, b) {
			read++
		}
	}
	t.Logf("%d of 20000 altered bodies read from the wire, the others left to Decode", read)
}

func FuzzWireCalls(f *testing.F) {
	for _, s := range wireSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) { sameAsDecode(t, body) })
}

func TestDecodeCallsLeavesErrorsToDecode(t *testing.T) {
	body := wireSeeds(t)[1]
	_, _, err := DecodeCalls(body[:len(body)-3], Protobuf)
	_, want := Decode(body[:len(body)-3], Protobuf)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Fatalf("got %v, want %v", err, want)
	}
}
