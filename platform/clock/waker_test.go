package clock_test

import (
	"testing"

	"github.com/vigilhq/vigil/platform/clock"
)

// TestWaker: the zero Waker works, Wake never blocks, and rings before
// the loop reads fold into one.
func TestWaker(t *testing.T) {
	var w clock.Waker
	for range 3 {
		w.Wake()
	}
	select {
	case <-w.C():
	default:
		t.Fatal("got no ring after Wake, want one")
	}
	select {
	case <-w.C():
		t.Fatal("got a second ring from three folded Wakes, want one")
	default:
	}
}
