import { issueMetaSchema, type IssueMeta } from '../../src/client/schemas.ts';

/**
 * Issue meta as the tracker answers it: one required field of every type beside the fields the
 * ticket modal has inputs of its own for, an optional field with choices, and optional labels.
 */
export const issueMeta: IssueMeta = issueMetaSchema.parse({
  project: { id: '10001', key: 'OPS', name: 'Operations' },
  issuetype: { id: '10004', name: 'Incident' },
  fields: [
    { key: 'summary', name: 'Summary', required: true, type: 'string' },
    { key: 'description', name: 'Description', required: true, type: 'text' },
    {
      key: 'project',
      name: 'Project',
      required: true,
      type: 'option',
      allowedValues: [{ id: '10001', name: 'Operations' }],
    },
    {
      key: 'issuetype',
      name: 'Issue Type',
      required: true,
      type: 'option',
      allowedValues: [{ id: '10004', name: 'Incident' }],
    },
    {
      key: 'priority',
      name: 'Priority',
      required: true,
      type: 'option',
      allowedValues: [
        { id: '2', name: 'High' },
        { id: '3', name: 'Medium' },
      ],
    },
    {
      key: 'components',
      name: 'Components',
      required: true,
      type: 'array',
      allowedValues: [
        { id: '7', name: 'API' },
        { id: '8', name: 'Web' },
      ],
    },
    { key: 'customfield_tags', name: 'Tags', required: true, type: 'array' },
    { key: 'customfield_env', name: 'Environment', required: true, type: 'string' },
    { key: 'customfield_impact', name: 'Impact', required: true, type: 'text' },
    { key: 'customfield_points', name: 'Points', required: true, type: 'number' },
    { key: 'duedate', name: 'Due date', required: true, type: 'date' },
    { key: 'assignee', name: 'Assignee', required: true, type: 'user' },
    {
      key: 'fixVersions',
      name: 'Fix versions',
      required: false,
      type: 'array',
      allowedValues: [{ id: '1', name: '1.0' }],
    },
    { key: 'labels', name: 'Labels', required: false, type: 'array' },
  ],
});
