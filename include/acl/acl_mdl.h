// Compatibility placeholder for CANN's acl/acl_mdl.h: OpenACLNN does not provide the aclmdl API.
// Kept without an include guard, as CANN ships it, so a real aclmdl header can replace it cleanly.
