package remote

import (
	"errors"
	"testing"

	"vegas-desk/internal/ledger/core"
	"vegas-desk/internal/ledger/protocol"
	"vegas-desk/internal/ledger/wire"
)

// Every code the server answers is an error of its own on the counter:
// errors.Is its kind (and the broader one it belongs to), and no other
// code's kind. A code this version does not know is the server's failure,
// its message kept.
func TestErrorOfEveryCode(t *testing.T) {
	seen := map[error]string{}
	for _, k := range protocol.Kinds {
		if k.Code == protocol.CodeRefused {
			continue
		}
		if other, ok := seen[k.Err]; ok {
			t.Errorf("codes %s and %s are one error on the counter (%v)", k.Code, other, k.Err)
		}
		seen[k.Err] = k.Code
	}
	for _, k := range protocol.Kinds {
		if k.Code == protocol.CodeRefused {
			continue
		}
		err := errorOf(wire.Error{Code: k.Code, Message: "the server's words"})
		if err.Error() != "the server's words" {
			t.Errorf("%s: message %q", k.Code, err)
		}
		if !errors.Is(err, k.Err) || (k.Also != nil && !errors.Is(err, k.Also)) {
			t.Errorf("%s: %v is not %v (and %v)", k.Code, err, k.Err, k.Also)
		}
		for _, o := range protocol.Kinds {
			if o.Code != k.Code && o.Err != nil && o.Err != k.Also && errors.Is(err, o.Err) {
				t.Errorf("%s: %v is also %s's %v", k.Code, err, o.Code, o.Err)
			}
		}
	}
	// The kinds a counter's caller tells apart, named.
	for code, want := range map[string]error{
		protocol.CodeUnknownDesk: core.ErrDeskUnknown, protocol.CodeDeskDisabled: core.ErrDeskDisabled,
		protocol.CodeDeskRevoked: core.ErrDeskRevoked, protocol.CodeOtherLedger: core.ErrOtherLedger,
		protocol.CodeBadSerial: protocol.ErrBadSerial, protocol.CodeTooLarge: protocol.ErrTooLarge,
		protocol.CodeInternal: protocol.ErrInternal, protocol.CodeUnavailable: core.ErrUnreachable,
		protocol.CodeBadRequest: core.ErrInvalid,
	} {
		if err := errorOf(wire.Error{Code: code}); !errors.Is(err, want) {
			t.Errorf("%s: %v is not %v", code, err, want)
		}
	}
	if err := errorOf(wire.Error{Code: protocol.CodeUnknownDesk}); errors.Is(err, core.ErrDeskDisabled) {
		t.Errorf("an unknown desk is told it is disabled: %v", err)
	}
	err := errorOf(wire.Error{Code: "from-a-newer-server", Message: "m"})
	if !errors.Is(err, protocol.ErrInternal) || err.Error() != `the server answered "from-a-newer-server": m` {
		t.Errorf("an unknown code: %v", err)
	}
	// A refusal is the refusal itself: locked, with its end.
	var r *core.Refusal
	err = errorOf(wire.Error{Code: protocol.CodeRefused, Refusal: &wire.Refusal{Verdict: string(core.Locked), Serial: "s"}})
	if !errors.As(err, &r) || !errors.Is(err, core.ErrLocked) {
		t.Errorf("a locked desk's refusal: %v", err)
	}
}
