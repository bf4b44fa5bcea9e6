"""Element types: the runtime's cake_dtype numbers and names, and how torch dtypes and
__cuda_array_interface__ typestrs map onto them.  Pure Python (no library needed)."""

# Values of enum cake_dtype in runtime/include/cake/runtime.h.
INVALID, PRED, I32, U32, I64, F16, BF16, F32, F8E4M3, F8E5M2, F64 = range(11)

NAMES = {
    PRED: "pred", I32: "i32", U32: "u32", I64: "i64", F16: "f16", BF16: "bf16",
    F32: "f32", F8E4M3: "f8e4m3", F8E5M2: "f8e5m2", F64: "f64",
}
BY_NAME = {name: code for code, name in NAMES.items()}
# dtype -> the name of the torch dtype (torch.float32 is getattr(torch, TORCH_NAMES[F32])).
TORCH_NAMES = {PRED: "bool", I32: "int32", U32: "uint32", I64: "int64", F16: "float16", BF16: "bfloat16",
               F32: "float32", F8E4M3: "float8_e4m3fn", F8E5M2: "float8_e5m2", F64: "float64"}
SIZES = {PRED: 1, I32: 4, U32: 4, I64: 8, F16: 2, BF16: 2, F32: 4, F8E4M3: 1, F8E5M2: 1, F64: 8}
INTEGER = {PRED, I32, U32, I64}

# __cuda_array_interface__ typestr (byte order stripped) -> dtype.  Types the interface cannot spell
# (bf16, f8) arrive as opaque 'V<n>' (or as u1 for f8); those are matched against the parameter's dtype by
# size in typestr_to_dtype.
_TYPESTR = {"b1": PRED, "i4": I32, "u4": U32, "i8": I64, "f2": F16, "f4": F32, "f8": F64}


def name(code):
    return NAMES.get(code, "invalid")


def from_name(text):
    return BY_NAME.get(text, INVALID)


def typestr_to_dtype(typestr, expected=INVALID):
    """Maps a typestr such as '<f2' to a dtype.  Opaque types ('<V2', '|V1') and '|u1' / '|i1' take the
    expected parameter dtype when its size matches (bf16 and f8 have no typestr of their own)."""
    if not isinstance(typestr, str) or len(typestr) < 3 or typestr[0] not in "<>|=":
        raise ValueError("invalid __cuda_array_interface__ typestr %r" % (typestr,))
    if typestr[0] == ">":
        raise ValueError("big-endian data (typestr %r) is not supported" % typestr)
    body = typestr[1:]
    if body in _TYPESTR:
        return _TYPESTR[body]
    size = int(body[1:]) if body[1:].isdigit() else 0
    opaque = body[0] == "V" or (body in ("u1", "i1") and expected in (F8E4M3, F8E5M2))
    if opaque and expected != INVALID and SIZES.get(expected) == size:
        return expected
    raise ValueError("typestr %r has no CAKE dtype%s" % (
        typestr, "" if expected == INVALID else " matching %s" % name(expected)))


def torch_dtype_to_dtype(torch_dtype):
    """Maps a torch.dtype (by its name, so torch need not be imported here) to a cake dtype."""
    text = str(torch_dtype).replace("torch.", "")
    table = {
        "bool": PRED, "int32": I32, "uint32": U32, "int64": I64, "float16": F16, "half": F16,
        "bfloat16": BF16, "float32": F32, "float": F32, "float8_e4m3fn": F8E4M3, "float8_e5m2": F8E5M2,
        "float64": F64,
    }
    if text not in table:
        raise ValueError("torch dtype %s has no CAKE dtype" % text)
    return table[text]
