package printer

import (
	"context"
	"errors"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Printing on Windows goes through the Windows spooler (winspool.drv):
// Queues lists the printers Windows knows (local ones and connections to
// shared ones, \\server\name), Default names the one Windows prints on
// when none is chosen, Print sends a PDF to a printer as a job of its own
// (data type RAW: the file as it is, for a printer that reads PDF itself,
// as most network office printers do; a printer that does not prints it
// as text, so such a printer is given the PDF through a reader: -o FILE).

var (
	winspool           = windows.NewLazySystemDLL("winspool.drv")
	procEnumPrinters   = winspool.NewProc("EnumPrintersW")
	procGetDefault     = winspool.NewProc("GetDefaultPrinterW")
	procOpenPrinter    = winspool.NewProc("OpenPrinterW")
	procClosePrinter   = winspool.NewProc("ClosePrinter")
	procStartDoc       = winspool.NewProc("StartDocPrinterW")
	procEndDoc         = winspool.NewProc("EndDocPrinter")
	procWritePrinter   = winspool.NewProc("WritePrinter")
	procAbortPrinter   = winspool.NewProc("AbortPrinter")
	errInvalidPrinter  = windows.Errno(1801) // ERROR_INVALID_PRINTER_NAME
	errNoDefault       = windows.ERROR_FILE_NOT_FOUND
	printerEnumLocal   = uint32(0x2)
	printerEnumConnect = uint32(0x4)
)

// ValidQueue reports whether name can be a Windows printer's name: not
// empty, printable, at most 256 characters, without a comma (the spooler's
// separator) or a leading "-" (read as an option).
func ValidQueue(name string) bool {
	return name != "" && len(name) <= 256 && !strings.HasPrefix(name, "-") && !strings.ContainsFunc(name, func(r rune) bool {
		return r < ' ' || r == 0x7f || r == ','
	})
}

// printerInfo4 is PRINTER_INFO_4W.
type printerInfo4 struct {
	name, server *uint16
	attributes   uint32
}

// Queues lists the printers Windows knows here, in its order (local
// printers, then connections). No printer is an empty list.
func Queues(ctx context.Context) ([]string, error) {
	flags := printerEnumLocal | printerEnumConnect
	var needed, n uint32
	r, _, err := procEnumPrinters.Call(uintptr(flags), 0, 4, 0, 0, uintptr(unsafe.Pointer(&needed)), uintptr(unsafe.Pointer(&n)))
	if r == 0 && needed == 0 {
		if errors.Is(err, windows.ERROR_INSUFFICIENT_BUFFER) || err == windows.Errno(0) {
			return nil, nil
		}
		return nil, spoolerError("", err)
	}
	if needed == 0 {
		return nil, nil
	}
	buf := make([]byte, needed)
	r, _, err = procEnumPrinters.Call(uintptr(flags), 0, 4, uintptr(unsafe.Pointer(&buf[0])), uintptr(needed),
		uintptr(unsafe.Pointer(&needed)), uintptr(unsafe.Pointer(&n)))
	if r == 0 {
		return nil, spoolerError("", err)
	}
	infos := unsafe.Slice((*printerInfo4)(unsafe.Pointer(&buf[0])), n)
	qs := make([]string, 0, n)
	for _, in := range infos {
		qs = append(qs, windows.UTF16PtrToString(in.name))
	}
	return qs, nil
}

// Default is the printer Windows prints on when none is chosen, "" when
// Windows has none.
func Default(ctx context.Context) (string, error) {
	var size uint32
	procGetDefault.Call(0, uintptr(unsafe.Pointer(&size)))
	if size == 0 {
		return "", nil
	}
	buf := make([]uint16, size)
	r, _, err := procGetDefault.Call(uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&size)))
	if r == 0 {
		if errors.Is(err, errNoDefault) {
			return "", nil
		}
		return "", spoolerError("", err)
	}
	return windows.UTF16ToString(buf), nil
}

// docInfo1 is DOC_INFO_1W.
type docInfo1 struct{ docName, outputFile, datatype *uint16 }

// Print sends the file at path to the printer queue through the spooler,
// as one job named after the file, and returns the job's number. An
// unknown printer is ErrNoQueue; a job the spooler refused, ErrRefused.
func Print(ctx context.Context, queue, title, path string) (string, error) {
	if !ValidQueue(queue) {
		return "", &Error{Queue: queue, Detail: "not the name of a printer", Kind: ErrNoQueue}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	name, _ := windows.UTF16PtrFromString(queue)
	var h windows.Handle
	if r, _, err := procOpenPrinter.Call(uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(&h)), 0); r == 0 {
		return "", spoolerError(queue, err)
	}
	defer procClosePrinter.Call(uintptr(h))
	doc, _ := windows.UTF16PtrFromString(jobTitle(title)) // what the spooler's list shows
	raw, _ := windows.UTF16PtrFromString("RAW")
	di := docInfo1{docName: doc, datatype: raw}
	job, _, err := procStartDoc.Call(uintptr(h), 1, uintptr(unsafe.Pointer(&di)))
	if job == 0 {
		return "", spoolerError(queue, err)
	}
	for len(data) > 0 {
		var written uint32
		r, _, err := procWritePrinter.Call(uintptr(h), uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)), uintptr(unsafe.Pointer(&written)))
		if r == 0 || written == 0 {
			procAbortPrinter.Call(uintptr(h))
			return "", spoolerError(queue, err)
		}
		data = data[written:]
	}
	if r, _, err := procEndDoc.Call(uintptr(h)); r == 0 {
		return "", spoolerError(queue, err)
	}
	return strings.TrimSpace(queue) + "-" + itoa(job), nil
}

// spoolerError says what the spooler answered, as an *Error of its kind.
func spoolerError(queue string, err error) error {
	kind := ErrRefused
	switch {
	case errors.Is(err, errInvalidPrinter):
		kind = ErrNoQueue
	case errors.Is(err, windows.RPC_S_SERVER_UNAVAILABLE), errors.Is(err, windows.ERROR_SERVICE_NOT_ACTIVE):
		kind = ErrNoCUPS
	}
	detail := ""
	if err != nil && err != windows.Errno(0) {
		detail = err.Error()
	}
	return &Error{Queue: queue, Detail: detail, Kind: kind}
}

func itoa(n uintptr) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for ; n > 0; n /= 10 {
		i--
		b[i] = byte('0' + n%10)
	}
	return string(b[i:])
}
