// Compatibility placeholder for CANN's acl/acl_base_mdl.h: the model-base API is not provided.
// Kept without an include guard, as CANN ships it, so a real header can replace it cleanly.
